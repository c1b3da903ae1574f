import type { ConversationRow, SandboxRow, StartTaskRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";
import { describeError } from "../../describe-error";
import { HttpStatus } from "../../errors";
import { completeClaim, releaseClaim } from "../../idempotency/claim";
import { REPLICA_LEASE_PREFIX } from "../../replicas/duty-lease";
import type { RemoveLockedSandboxDeps } from "../../sandboxes/service/delete-sandbox";
import type { SandboxMoveDeps } from "../../sandboxes/service/status";
import { CreateConversationInput } from "../start-contracts";
import { discardSandbox, recordConversation, startedConversation } from "./create-conversation";
import type { AgentProbeDeps } from "./discover-conversation";
import { askAgentServer } from "./discover-conversation";
import { isUnfinished, UNFINISHED_STATUSES } from "./start-tasks";

/**
 * Over a shared store, an unfinished task of a replica that is not live is only taken for
 * abandoned once it has not moved for this long (a replica that has just started may not have
 * written its heartbeat yet).
 */
const ABANDONED_AFTER_MS = 10_000;

export const INTERRUPTED_DETAIL =
  "The control plane stopped before the conversation was created; nothing of it was kept. Create it again";

/**
 * Settles the creates a control plane died in the middle of: every start task left WORKING,
 * WAITING_FOR_SANDBOX or STARTING_CONVERSATION by a replica that no longer runs (over an unshared
 * store: every one opened before `startedAt`, this process's start). A create ends whole or not
 * at all:
 * - the conversation already exists (its agent server holds it, or it was registered since):
 *   it is recorded, the task is READY and the create's `Idempotency-Key` replays it;
 * - otherwise the task ends in ERROR, the sandbox the create started is removed (never one the
 *   request named) and the key is free for a retry.
 * A task whose replica is alive is left to it.
 */
export async function reconcileStartTasks(
  deps: Pick<
    CoreDeps,
    | "activity"
    | "agents"
    | "events"
    | "locks"
    | "log"
    | "now"
    | "repos"
    | "runtime"
    | "sharedStore"
    | "transaction"
  > & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  startedAt: number,
): Promise<void> {
  const tasks = await deps.repos.startTasks.listByStatus(UNFINISHED_STATUSES);
  if (tasks.length === 0) return;
  const live = deps.sharedStore
    ? new Set((await deps.repos.leases.listLive(REPLICA_LEASE_PREFIX)).map((l) => l.holder))
    : new Set<string>();
  for (const task of tasks) {
    if (deps.sharedStore) {
      if (task.replicaId && live.has(task.replicaId)) continue;
      if (deps.now() - task.updatedAt < ABANDONED_AFTER_MS) continue;
    } else if (task.createdAt >= startedAt) {
      continue;
    }
    await settleTask(deps, task).catch((error: unknown) => {
      deps.log.error(
        { conversationId: task.id, reason: describeError(error).message },
        "interrupted conversation create not settled",
      );
    });
  }
}

async function settleTask(
  deps: Pick<
    CoreDeps,
    "activity" | "agents" | "events" | "locks" | "log" | "now" | "repos" | "runtime" | "transaction"
  > & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  task: StartTaskRow,
): Promise<void> {
  const input = CreateConversationInput.safeParse(task.request);
  const sandbox = task.sandboxId ? await deps.repos.sandboxes.get(task.sandboxId) : undefined;
  const found = input.success && sandbox ? await findConversation(deps, task, sandbox) : undefined;
  if (found && input.success && sandbox) {
    const completed = await complete(deps, task, sandbox, input.data, found);
    if (completed) return;
  }
  await rollBack(deps, task, input.success && !input.data.sandbox_id ? sandbox : undefined);
}

/** The conversation as registered already, or as its agent server holds it. */
async function findConversation(
  deps: AgentProbeDeps,
  task: StartTaskRow,
  sandbox: SandboxRow,
): Promise<{ row?: ConversationRow; executionStatus: string | null } | undefined> {
  const row = await deps.repos.conversations.get(task.id);
  if (row)
    return row.sandboxId === sandbox.id ? { row, executionStatus: row.executionStatus } : undefined;
  if (sandbox.status !== "RUNNING") return undefined;
  const info = await askAgentServer(deps, sandbox, task.id);
  return info ? { executionStatus: info.execution_status } : undefined;
}

async function complete(
  deps: SandboxMoveDeps,
  task: StartTaskRow,
  sandbox: SandboxRow,
  input: CreateConversationInput,
  found: { row?: ConversationRow; executionStatus: string | null },
): Promise<boolean> {
  let row = found.row;
  let settled: StartTaskRow | undefined;
  if (row) {
    const registered = row;
    settled = await deps.transaction(async (tx) => {
      const open = await tx.startTasks.get(task.id);
      if (!open || !isUnfinished(open)) return undefined;
      const ready = await tx.startTasks.update(task.id, {
        status: "READY",
        appConversationId: registered.id,
        sandboxId: sandbox.id,
        agentServerUrl: sandbox.agentServerUrl,
        updatedAt: deps.now(),
      });
      if (ready && open.idempotencyRecordId) {
        const answer = startedConversation(ready, registered, sandbox, found.executionStatus);
        await completeClaim(tx, open.idempotencyRecordId, HttpStatus.CREATED, answer);
      }
      return ready;
    });
  } else {
    const recorded = await recordConversation(deps, {
      id: task.id,
      ownerId: task.ownerId,
      sandbox,
      input,
      executionStatus: found.executionStatus,
    });
    row = recorded.row;
    settled = recorded.task;
  }
  if (!settled) return true;
  deps.log.warn(
    { conversationId: task.id, sandboxId: sandbox.id },
    "interrupted conversation create completed",
  );
  return true;
}

async function rollBack(
  deps: RemoveLockedSandboxDeps,
  task: StartTaskRow,
  started: SandboxRow | undefined,
): Promise<void> {
  // The sandbox goes first: a reconcile cut short here finds the task unfinished next time.
  const current = await deps.repos.startTasks.get(task.id);
  if (!current || !isUnfinished(current)) return;
  if (started) await discardSandbox(deps, started.id);
  const failed = await deps.transaction(async (tx) => {
    const open = await tx.startTasks.get(task.id);
    if (!open || !isUnfinished(open)) return undefined;
    if (open.idempotencyRecordId) await releaseClaim(tx, open.idempotencyRecordId);
    return tx.startTasks.update(task.id, {
      status: "ERROR",
      detail: INTERRUPTED_DETAIL,
      updatedAt: deps.now(),
    });
  });
  if (!failed) return;
  deps.log.warn(
    { conversationId: task.id, sandboxId: started?.id ?? null },
    "interrupted conversation create rolled back",
  );
}
