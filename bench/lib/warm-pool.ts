import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ControlPlane, Json } from "./control-plane";
import { instanceId, managedSandboxIds } from "./docker";
import type { RuntimeKind } from "./runtimes";
import { sleep } from "./stats";

/**
 * Sandbox ids that are ready on the runtime but unknown to the admin's API listing: the pool.
 * Waits until there are at least `want` of them or `timeoutMs` passed; returns what it saw last.
 */
export async function waitForPool(
  cp: ControlPlane,
  runtime: RuntimeKind,
  want: number,
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await cp.api("GET", "/api/v1/sandboxes/search?limit=100");
    const known = new Set<string>((listed.body?.items ?? []).map((s: Json) => s.id as string));
    const ready = await readyOnRuntime(cp, runtime);
    const pool = ready.filter((id) => !known.has(id));
    if (pool.length >= want || Date.now() > deadline) return pool;
    await sleep(50);
  }
}

async function readyOnRuntime(cp: ControlPlane, runtime: RuntimeKind): Promise<string[]> {
  if (runtime === "docker") {
    const instance = instanceId(cp.dataDir);
    return instance ? managedSandboxIds(instance) : [];
  }
  const root = path.join(cp.dataDir, "sandboxes");
  if (!existsSync(root)) return [];
  const ids = readdirSync(root);
  const healthy = await Promise.all(ids.map((id) => agentServerAnswers(path.join(root, id))));
  return ids.filter((_, i) => healthy[i]);
}

/**
 * Whether the agent server of a process sandbox answers /health at its address (the sandbox's
 * veth address, or the host's loopback where a forwarder holds the port from the start, so
 * someone listening there is not enough).
 */
async function agentServerAnswers(dir: string): Promise<boolean> {
  try {
    const state = JSON.parse(readFileSync(path.join(dir, "sandbox.json"), "utf8")) as {
      port?: number;
      network?: { address?: string } | null;
    };
    if (typeof state.port !== "number") return false;
    const host = state.network?.address ?? "127.0.0.1";
    const res = await fetch(`http://${host}:${state.port}/health`, {
      signal: AbortSignal.timeout(1000),
    });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
