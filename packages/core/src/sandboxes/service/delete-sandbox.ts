import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { drainTimeoutMs } from "./pause-sandbox";
import { findOwnedSandbox, illegalMove, type SandboxMoveDeps, updateSandbox } from "./status";

/** What removing a sandbox from the runtime and the records uses. */
export type RemoveSandboxDeps = SandboxMoveDeps & Pick<CoreDeps, "activity" | "agents" | "runtime">;

/** Removing one under its lock, reading its row first. */
export type RemoveLockedSandboxDeps = RemoveSandboxDeps & Pick<CoreDeps, "locks" | "repos">;

/** Stopping one: messages in flight to it drain first (the forward gate). */
export type StopSandboxDeps = RemoveSandboxDeps &
  Pick<CoreDeps, "forwards"> & { config: Pick<CoreConfig, "agentRequestTimeoutMs"> };

/** Deleting one a user owns: stopping it under its lock. */
export type DeleteSandboxDeps = StopSandboxDeps & RemoveLockedSandboxDeps;

const DELETABLE = new Set(["RUNNING", "PAUSED", "ERROR"]);

/** RUNNING, PAUSED or ERROR → STOPPING → gone; its conversations become archived. */
export async function deleteSandbox(
  deps: DeleteSandboxDeps,
  ownerId: string,
  id: string,
): Promise<void> {
  await findOwnedSandbox(deps, ownerId, id);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (!DELETABLE.has(row.status)) throw illegalMove(row, "delete");
    await stopAndRemove(deps, row, null);
  });
}

/**
 * STOPPING (with `statusDetail` saying why, if given) → gone. Call it under the sandbox's lock.
 */
export function stopAndRemove(
  deps: StopSandboxDeps,
  row: SandboxRow,
  statusDetail: string | null,
): Promise<void> {
  // No agent server is removed with a message in flight: those finish, new ones get 409.
  return deps.forwards.whileClosed(row.id, "being deleted", drainTimeoutMs(deps), async () => {
    const detail = statusDetail === null ? {} : { statusDetail };
    await updateSandbox(deps, row.id, { status: "STOPPING", ...detail });
    await removeSandbox(deps, row);
  });
}

/** Removes the runtime side, archives conversations and drops the record. Also used on recovery. */
export async function removeSandbox(deps: RemoveSandboxDeps, row: SandboxRow): Promise<void> {
  try {
    await deps.runtime.delete(row.id);
  } catch (error) {
    // The record stays STOPPING; reconciliation finishes the removal later.
    deps.log.error({ sandboxId: row.id, reason: errorMessage(error) }, "sandbox removal failed");
    throw new AppError(
      "SANDBOX_UNAVAILABLE",
      `Removing the sandbox failed: ${errorMessage(error)}`,
    );
  }
  if (row.agentServerUrl) await deps.agents.forget(row.agentServerUrl);
  // Both or neither: never a removed sandbox with conversations that are not archived.
  await deps.transaction(async (tx) => {
    await tx.conversations.archiveBySandbox(row.id, deps.now());
    await tx.sandboxes.remove(row.id);
  });
  deps.activity.delete(row.id);
  deps.log.info({ sandboxId: row.id }, "sandbox deleted");
  deps.events.emit("sandbox.deleted", row);
}
