import type { StartTaskPatch, StartTaskRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { describeError } from "../../describe-error";
import { AppError } from "../../errors";
import { releaseClaim } from "../../idempotency/claim";
import type { StartTaskStatus } from "../start-contracts";

/** The states of a create still under way (or cut short by a control plane that died). */
export const UNFINISHED_STATUSES: StartTaskStatus[] = [
  "WORKING",
  "WAITING_FOR_SANDBOX",
  "STARTING_CONVERSATION",
];

export function isUnfinished(task: StartTaskRow): boolean {
  return (UNFINISHED_STATUSES as string[]).includes(task.status);
}

/** Told every state a start task takes (stream-start answers them all). */
export type StartTaskListener = (task: StartTaskRow) => void;

/**
 * Records a create as a WORKING start task under the conversation's id, with the replica that
 * runs it and its `Idempotency-Key` record (so that a reconcile can settle both if this replica
 * dies). The id must be new: no conversation and no earlier task may have it (checked and written
 * in one transaction).
 */
export async function openStartTask(
  deps: Pick<CoreDeps, "now" | "replicaId" | "transaction">,
  ownerId: string,
  id: string,
  request: Record<string, unknown>,
  idempotencyRecordId: string | null = null,
): Promise<StartTaskRow> {
  const now = deps.now();
  return deps.transaction(async (tx) => {
    if ((await tx.conversations.get(id)) || (await tx.startTasks.get(id))) {
      throw new AppError("CONVERSATION_EXISTS", `Conversation ${id} exists already`, {
        details: { conversation_id: id },
      });
    }
    return tx.startTasks.insert({
      id,
      ownerId,
      status: "WORKING",
      detail: null,
      appConversationId: null,
      sandboxId: null,
      agentServerUrl: null,
      request,
      replicaId: deps.replicaId,
      idempotencyRecordId,
      createdAt: now,
      updatedAt: now,
    });
  });
}

/** Moves a start task on; the updated task (undefined if it is gone). */
export function moveStartTask(
  deps: Pick<CoreDeps, "now" | "repos">,
  id: string,
  status: StartTaskStatus,
  patch: Omit<StartTaskPatch, "status" | "updatedAt"> = {},
): Promise<StartTaskRow | undefined> {
  return deps.repos.startTasks.update(id, { ...patch, status, updatedAt: deps.now() });
}

/**
 * Marks the task ERROR with what the caller is told about the failure (never an internal message),
 * and returns the error to throw: ours carry the task's id in `details.start_task_id`.
 */
export async function failStartTask(
  deps: Pick<CoreDeps, "log" | "now" | "transaction">,
  id: string,
  error: unknown,
): Promise<{ task: StartTaskRow | undefined; error: unknown }> {
  const detail = describeError(error).message;
  let task: StartTaskRow | undefined;
  try {
    // The key is freed with the task's failure, so that no crash leaves it "in progress".
    task = await deps.transaction(async (tx) => {
      const failed = await tx.startTasks.update(id, {
        status: "ERROR",
        detail,
        updatedAt: deps.now(),
      });
      if (failed?.idempotencyRecordId) await releaseClaim(tx, failed.idempotencyRecordId);
      return failed;
    });
  } catch (storeError) {
    // The create's own failure is the one to report; the task stays as it was.
    deps.log.warn({ conversationId: id, reason: describeError(storeError).message }, "start task");
  }
  if (!(error instanceof AppError)) return { task, error };
  const tagged = new AppError(error.code, error.message, {
    status: error.status,
    details: { ...error.details, start_task_id: id },
    cause: error.cause ?? error,
    ...(error.issues ? { issues: error.issues } : {}),
  });
  return { task, error: tagged };
}
