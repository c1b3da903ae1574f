import { hash, timingSafeEqual } from "node:crypto";
import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";

function digest(text: string): Buffer {
  return hash("sha256", text, "buffer");
}

/**
 * The RUNNING sandbox whose session key was presented (`X-Session-API-Key`), as OpenHands' app
 * server checks sandbox-scoped calls: no key, an unknown key, a sandbox that is not RUNNING or whose
 * owner is disabled → 401. Keys are compared as digests in constant time; the running set is
 * bounded by the running-sandbox limit.
 */
export async function sandboxOfSessionKey(
  deps: Pick<CoreDeps, "repos">,
  key: string | null,
): Promise<SandboxRow> {
  if (!key) throw new AppError("UNAUTHORIZED", "X-Session-API-Key header is required");
  const presented = digest(key);
  const running = await deps.repos.sandboxes.listByStatus(["RUNNING"]);
  const sandbox = running.find((row) => timingSafeEqual(digest(row.sessionApiKey), presented));
  if (!sandbox) throw new AppError("UNAUTHORIZED", "Invalid session API key");
  const owner = await deps.repos.users.get(sandbox.ownerId);
  if (!owner || owner.disabledAt !== null) {
    throw new AppError("UNAUTHORIZED", "Invalid session API key");
  }
  return sandbox;
}

/** The session key must be the key of the sandbox named in the path (403 otherwise). */
export async function authorizeSandboxSession(
  deps: Pick<CoreDeps, "repos">,
  key: string | null,
  sandboxId: string,
): Promise<SandboxRow> {
  const sandbox = await sandboxOfSessionKey(deps, key);
  if (sandbox.id !== sandboxId) {
    throw new AppError("FORBIDDEN", "Session API key does not match sandbox");
  }
  return sandbox;
}
