import { readdir } from "node:fs/promises";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import { isSafeSandboxId, readSandboxState, resolveSandboxPaths } from "../sandbox-files";
import type { UsableNetns } from "./detect-netns";
import { poolPrefixOf } from "./netns-pool";
import { removeNetns } from "./sandbox-network";

/** Where `ip netns` keeps named namespaces. */
const NETNS_DIR = "/run/netns";

/**
 * Removes the pool namespaces an earlier control plane over `rootDir` made and never handed out
 * (it was killed before its `close`): those with the pool's prefix that no sandbox's
 * `sandbox.json` names. A namespace a sandbox took from the pool is named in its record and
 * stays, for its adoption. Run at start, before this pool fills.
 */
export async function removePoolLeftovers(
  tools: UsableNetns,
  rootDir: string,
  logger: RuntimeLogger,
): Promise<void> {
  const prefix = `${poolPrefixOf(rootDir)}-`;
  const pooled = (await readdir(NETNS_DIR).catch(() => [])).filter((n) => n.startsWith(prefix));
  if (pooled.length === 0) return;
  const recorded = await recordedNamespaces(rootDir);
  const leftovers = pooled.filter((name) => !recorded.has(name));
  await Promise.all(
    leftovers.map((name) =>
      removeNetns(tools, name).catch((error: unknown) =>
        logger.warn({ netns: name, reason: errorMessage(error) }, "network namespace not removed"),
      ),
    ),
  );
  if (leftovers.length > 0) {
    logger.info(
      { count: leftovers.length },
      "removed the unused pool network namespaces of an earlier control plane",
    );
  }
}

/** The namespaces the sandboxes under `rootDir` record as theirs. */
async function recordedNamespaces(rootDir: string): Promise<Set<string>> {
  const entries = await readdir(rootDir).catch(() => []);
  const states = await Promise.all(
    entries
      .filter(isSafeSandboxId)
      .map((id) => readSandboxState(resolveSandboxPaths(rootDir, id)).catch(() => null)),
  );
  return new Set(states.flatMap((state) => state?.network?.namespace ?? []));
}
