import type { Repositories, SandboxPatch, SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { SandboxStatus } from "../contracts";
import { lifetimeOnMove } from "../lifetime/policy";

/** What recording a sandbox's move uses: the store, the core's events, its log and clock. */
export type SandboxMoveDeps = Pick<CoreDeps, "events" | "log" | "now" | "transaction">;

type SandboxMove = SandboxPatch & { status?: SandboxStatus };

/**
 * Writes a sandbox's new state and, once committed, tells listeners (webhooks, followers,
 * waiters) about a status move. Reading the state before and writing are one transaction, so the
 * move reported is the move made. `move` may be a function of the state before, run inside the
 * transaction: it may read through `tx` (a limit to respect), throw to refuse the move, or answer
 * null to leave the sandbox as it is.
 */
export async function updateSandbox(
  deps: SandboxMoveDeps,
  id: string,
  move: SandboxMove | ((before: SandboxRow, tx: Repositories) => Promise<SandboxMove | null>),
): Promise<SandboxRow | undefined> {
  const result = await deps.transaction(async (tx) => {
    const before = await tx.sandboxes.get(id);
    if (!before) return undefined;
    const patch = typeof move === "function" ? await move(before, tx) : move;
    if (!patch) return { before, after: before, patch: {} };
    const now = deps.now();
    // Every status move keeps the active-time accounting and the lifetime sweep's due time true.
    const lifetime =
      patch.status && patch.status !== before.status
        ? lifetimeOnMove(before, patch.status, now)
        : {};
    const after = await tx.sandboxes.update(id, { ...patch, ...lifetime, updatedAt: now });
    return after && { before, after, patch };
  });
  if (!result) return undefined;
  const { before, after, patch } = result;
  if (patch.status && patch.status !== before.status) {
    deps.log.info(
      { sandboxId: id, from: before.status, to: after.status, detail: after.statusDetail },
      "sandbox status changed",
    );
    deps.events.emit("sandbox.status_changed", { sandbox: after, previousStatus: before.status });
  }
  return after;
}

/** The caller's sandbox, or 404 (also for other users' sandboxes: existence is not leaked). */
export async function findOwnedSandbox(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  id: string,
): Promise<SandboxRow> {
  const row = await deps.repos.sandboxes.get(id);
  if (!row || row.ownerId !== ownerId) {
    throw new AppError("SANDBOX_NOT_FOUND", `Sandbox ${id} was not found`);
  }
  return row;
}

/** Resolves once the sandbox leaves STARTING (its row at that moment), or at the deadline. */
export function waitWhileStarting(
  deps: Pick<CoreDeps, "events" | "repos">,
  id: string,
  timeoutMs: number,
): Promise<SandboxRow | undefined> {
  return new Promise((resolve, reject) => {
    let done = false;
    const onChange = ({ sandbox }: { sandbox: SandboxRow }) => {
      if (sandbox.id === id && sandbox.status !== "STARTING") finish();
    };
    const onDeleted = (sandbox: SandboxRow) => {
      if (sandbox.id === id) finish();
    };
    const timer = setTimeout(() => finish(), timeoutMs);
    function finish(error?: unknown) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      deps.events.off("sandbox.status_changed", onChange);
      deps.events.off("sandbox.deleted", onDeleted);
      if (error !== undefined) reject(error);
      else deps.repos.sandboxes.get(id).then(resolve, reject);
    }
    // Listening before the first read: a move made while it runs cannot be missed.
    deps.events.on("sandbox.status_changed", onChange);
    deps.events.on("sandbox.deleted", onDeleted);
    deps.repos.sandboxes.get(id).then((current) => {
      if (current?.status !== "STARTING") finish();
    }, finish);
  });
}

export function illegalMove(row: SandboxRow, action: string): AppError {
  return new AppError(
    "INVALID_SANDBOX_STATE",
    `Cannot ${action} sandbox ${row.id} while it is ${row.status}`,
    { details: { status: row.status } },
  );
}
