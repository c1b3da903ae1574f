import type { SandboxPatch, SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { SandboxStatus } from "../contracts";

/** Writes a sandbox's new state and tells listeners (webhooks, waiters) about status moves. */
export function updateSandbox(
  deps: CoreDeps,
  id: string,
  patch: SandboxPatch & { status?: SandboxStatus },
): SandboxRow | undefined {
  const before = deps.repos.sandboxes.get(id);
  if (!before) return undefined;
  const after = deps.repos.sandboxes.update(id, { ...patch, updatedAt: deps.now() });
  if (after && patch.status && patch.status !== before.status) {
    deps.log.info(
      { sandboxId: id, from: before.status, to: after.status, detail: after.statusDetail },
      "sandbox status changed",
    );
    deps.events.emit("sandbox.status_changed", { sandbox: after, previousStatus: before.status });
  }
  return after;
}

/** The caller's sandbox, or 404 (also for other users' sandboxes: existence is not leaked). */
export function findOwnedSandbox(deps: CoreDeps, ownerId: string, id: string): SandboxRow {
  const row = deps.repos.sandboxes.get(id);
  if (!row || row.ownerId !== ownerId) {
    throw new AppError("SANDBOX_NOT_FOUND", `Sandbox ${id} was not found`);
  }
  return row;
}

/** Resolves once the sandbox leaves STARTING (its row at that moment), or at the deadline. */
export function waitWhileStarting(
  deps: CoreDeps,
  id: string,
  timeoutMs: number,
): Promise<SandboxRow | undefined> {
  const current = deps.repos.sandboxes.get(id);
  if (current?.status !== "STARTING") return Promise.resolve(current);
  return new Promise((resolve) => {
    const onChange = ({ sandbox }: { sandbox: SandboxRow }) => {
      if (sandbox.id === id && sandbox.status !== "STARTING") finish();
    };
    const onDeleted = (sandbox: SandboxRow) => {
      if (sandbox.id === id) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    function finish() {
      clearTimeout(timer);
      deps.events.off("sandbox.status_changed", onChange);
      deps.events.off("sandbox.deleted", onDeleted);
      resolve(deps.repos.sandboxes.get(id));
    }
    deps.events.on("sandbox.status_changed", onChange);
    deps.events.on("sandbox.deleted", onDeleted);
  });
}

export function illegalMove(row: SandboxRow, action: string): AppError {
  return new AppError(
    "INVALID_SANDBOX_STATE",
    `Cannot ${action} sandbox ${row.id} while it is ${row.status}`,
    { details: { status: row.status } },
  );
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
