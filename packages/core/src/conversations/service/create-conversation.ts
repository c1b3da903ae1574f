import { randomUUID } from "node:crypto";
import type { ConversationRow, SandboxRow, StartTaskRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import { agentErrorDetail } from "../../agent-client";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError, HttpStatus } from "../../errors";
import { completeClaim } from "../../idempotency/claim";
import type { RemoveLockedSandboxDeps } from "../../sandboxes/service/delete-sandbox";
import { removeSandbox } from "../../sandboxes/service/delete-sandbox";
import {
  type SandboxLink,
  type StartSandboxDeps,
  startSandbox,
} from "../../sandboxes/service/start-sandbox";
import type { SandboxMoveDeps } from "../../sandboxes/service/status";
import { findOwnedSandbox, waitWhileStarting } from "../../sandboxes/service/status";
import { toAppConversation } from "../contracts";
import {
  type CreateConversationInput,
  StartedAppConversation,
  toStartTask,
} from "../start-contracts";
import { findOwnedConversation } from "./find-conversation";
import {
  failStartTask,
  isUnfinished,
  moveStartTask,
  openStartTask,
  type StartTaskListener,
} from "./start-tasks";

const DEFAULT_AGENT = { kind: "shell" } as const;

/** What the agent server's create answered. */
type Created = { executionStatus: string | null };

export interface CreatedConversation {
  row: ConversationRow;
  sandbox: SandboxRow;
  executionStatus: string | null;
  /** The start task, READY. */
  task: StartTaskRow;
}

/** The request as accepted, with its defaults: the start task's `request`. */
function acceptedRequest(id: string, input: CreateConversationInput): Record<string, unknown> {
  return {
    conversation_id: id,
    sandbox_id: input.sandbox_id ?? null,
    sandbox_spec_id: input.sandbox_spec_id ?? null,
    title: input.title ?? null,
    agent: input.agent ?? DEFAULT_AGENT,
    initial_message: input.initial_message ?? null,
    metadata: input.metadata ?? {},
    parent_conversation_id: input.parent_conversation_id ?? null,
    selected_repository: input.selected_repository ?? null,
    selected_branch: input.selected_branch ?? null,
    git_provider: input.git_provider ?? null,
    trigger: input.trigger ?? null,
    llm_model: input.llm_model ?? null,
    pr_number: input.pr_number ?? [],
    public: input.public ?? null,
  };
}

/** What starting a conversation uses: its sandbox's start, and how long the whole may take. */
type ConversationStartDeps = StartSandboxDeps & {
  config: Pick<CoreConfig, "conversationStartTimeoutMs">;
};

/**
 * Creates a conversation in a new sandbox (or an existing one of the caller's), waiting — bounded —
 * until the sandbox is RUNNING and the agent server holds the conversation under the same id.
 * The create is recorded as a start task under the conversation's id (WORKING →
 * WAITING_FOR_SANDBOX → STARTING_CONVERSATION → READY): OpenHands' clients follow it. A failure
 * leaves the task in ERROR with the reason, and nothing else: a sandbox started for this
 * conversation is removed again.
 */
export async function createConversation(
  deps: ConversationStartDeps & Pick<CoreDeps, "replicaId">,
  ownerId: string,
  input: CreateConversationInput,
  onTask: StartTaskListener = () => undefined,
  idempotencyRecordId: string | null = null,
): Promise<CreatedConversation> {
  const id = input.conversation_id ?? randomUUID();
  if (input.parent_conversation_id) {
    await findOwnedConversation(deps, ownerId, input.parent_conversation_id);
  }
  const request = acceptedRequest(id, input);
  let opening: Promise<void> | undefined;
  const open = () => {
    if (!opening) {
      opening = openStartTask(deps, ownerId, id, request, idempotencyRecordId).then(onTask);
      // Its failure is the create's, met by whoever awaits it.
      opening.catch(() => undefined);
    }
    return opening;
  };
  // A given id may be taken: that is found out before a sandbox is touched. A new one is stored
  // while the sandbox is found (a warm-pool claim's key rotation), before anything names it.
  if (input.conversation_id || input.sandbox_id) await open();
  try {
    return await startConversation(deps, ownerId, id, input, onTask, open);
  } catch (error) {
    // A task that could not be opened has nothing to settle (its failure comes first); one not
    // opened yet is, so that every failure of the create leaves its task in ERROR.
    await open();
    const failed = await failStartTask(deps, id, error);
    if (failed.task) onTask(failed.task);
    throw failed.error;
  }
}

async function startConversation(
  deps: ConversationStartDeps,
  ownerId: string,
  id: string,
  input: CreateConversationInput,
  onTask: StartTaskListener,
  openTask: () => Promise<void>,
): Promise<CreatedConversation> {
  const deadline = deps.now() + deps.config.conversationStartTimeoutMs;
  const ownSandbox = !input.sandbox_id;
  const agent = input.agent ?? DEFAULT_AGENT;
  // A sandbox started here is named on the task, which then waits for it, in the transaction
  // that records it: a control plane killed from then on leaves a task that says which sandbox
  // to remove.
  let linked: StartTaskRow | undefined;
  // A claimed member is asked for the conversation before its claim is stored: the claim's
  // transaction stores the task's next state too.
  let starting: StartTaskRow | undefined;
  const asked = new Map<string, { agentServerUrl: string | null; created: Promise<Created> }>();
  const link: SandboxLink = {
    prepare: openTask,
    async record(tx, sandboxId) {
      const updatedAt = deps.now();
      linked = await tx.startTasks.update(id, {
        status: "WAITING_FOR_SANDBOX",
        sandboxId,
        updatedAt,
      });
      const { agentServerUrl } = asked.get(sandboxId) ?? {};
      if (linked && agentServerUrl) {
        const next = { status: "STARTING_CONVERSATION", agentServerUrl, updatedAt } as const;
        starting = await tx.startTasks.update(id, next);
      }
    },
    // The conversation is asked for while the sandbox is made this create's (a warm-pool claim)
    // or RUNNING (a new one). Its outcome waits, handled, until then.
    reachable(sandbox) {
      const created = createOnAgentServer(deps, sandbox, id, agent, input, deadline);
      created.catch(() => undefined);
      asked.set(sandbox.id, { agentServerUrl: sandbox.agentServerUrl, created });
    },
  };
  const found = input.sandbox_id
    ? await findOwnedSandbox(deps, ownerId, input.sandbox_id)
    : (
        await startSandbox(
          deps,
          ownerId,
          { sandbox_spec_id: input.sandbox_spec_id ?? undefined },
          link,
        )
      ).row;
  const sandboxId = found.id;
  const report = (task: StartTaskRow | undefined) => task && onTask(task);
  try {
    report(linked ?? (await moveStartTask(deps, id, "WAITING_FOR_SANDBOX", { sandboxId })));
    // A warm-pool claim (or a caller's running sandbox) needs no wait.
    const sandbox =
      found.status === "RUNNING" && found.agentServerUrl
        ? found
        : await waitUntilRunning(deps, sandboxId, deadline);
    // The request goes first (or went already) and the task's move is stored (or was) while
    // the agent server creates the conversation; both are settled before either's failure is
    // acted on, so that a failed create's ERROR is the task's last write.
    const [created, moved] = await Promise.allSettled([
      asked.get(sandboxId)?.created ??
        createOnAgentServer(deps, sandbox, id, agent, input, deadline),
      starting ??
        moveStartTask(deps, id, "STARTING_CONVERSATION", {
          agentServerUrl: sandbox.agentServerUrl,
        }),
    ]);
    if (moved.status === "rejected") throw moved.reason;
    if (created.status === "rejected") throw created.reason;
    report(moved.value);
    const info = created.value;
    const { row, task } = await recordConversation(deps, {
      id,
      ownerId,
      sandbox,
      input,
      executionStatus: info.executionStatus,
    });
    onTask(task);
    deps.activity.set(sandbox.id, row.createdAt);
    return { row, sandbox, executionStatus: info.executionStatus, task };
  } catch (error) {
    if (ownSandbox) await discardSandbox(deps, sandboxId);
    throw error;
  }
}

/**
 * Stores the conversation and moves its start task to READY, in one transaction — which also
 * stores the answer under the create's `Idempotency-Key`, so that no crash leaves a READY task
 * whose key still reads "in progress". Fails when the task is gone or settled already (a
 * reconcile took it for abandoned): the create does not count.
 */
export async function recordConversation(
  deps: SandboxMoveDeps,
  created: {
    id: string;
    ownerId: string;
    sandbox: SandboxRow;
    input: CreateConversationInput;
    executionStatus: string | null;
  },
): Promise<{ row: ConversationRow; task: StartTaskRow }> {
  const { id, ownerId, input } = created;
  const now = deps.now();
  const agent = input.agent ?? DEFAULT_AGENT;
  const recorded = await deps.transaction(async (tx) => {
    const open = await tx.startTasks.get(id);
    if (!open || !isUnfinished(open)) {
      throw new AppError("INTERNAL", `The start task of ${id} was settled without it`);
    }
    const row = await tx.conversations.insert({
      id,
      sandboxId: created.sandbox.id,
      ownerId,
      title: input.title ?? null,
      agent,
      metadata: input.metadata ?? {},
      archived: false,
      executionStatus: created.executionStatus,
      lastEventAt: null,
      createdAt: now,
      updatedAt: now,
      parentConversationId: input.parent_conversation_id ?? null,
      public: input.public ?? null,
      selectedRepository: input.selected_repository ?? null,
      selectedBranch: input.selected_branch ?? null,
      gitProvider: input.git_provider ?? null,
      trigger: input.trigger ?? null,
      llmModel: input.llm_model ?? null,
      prNumber: input.pr_number ?? [],
    });
    const task =
      (await tx.startTasks.update(id, {
        status: "READY",
        appConversationId: id,
        updatedAt: now,
      })) ?? open;
    if (open.idempotencyRecordId) {
      const answer = startedConversation(task, row, created.sandbox, created.executionStatus);
      await completeClaim(tx, open.idempotencyRecordId, HttpStatus.CREATED, answer);
    }
    return { row, task };
  });
  deps.log.info({ conversationId: id, sandboxId: created.sandbox.id }, "conversation created");
  deps.events.emit("conversation.created", recorded.row);
  return recorded;
}

async function waitUntilRunning(
  deps: Pick<CoreDeps, "events" | "now" | "repos"> & {
    config: Pick<CoreConfig, "conversationStartTimeoutMs">;
  },
  id: string,
  deadline: number,
): Promise<SandboxRow> {
  const row = await waitWhileStarting(deps, id, Math.max(0, deadline - deps.now()));
  if (!row) throw new AppError("SANDBOX_START_FAILED", `Sandbox ${id} no longer exists`);
  if (row.status === "RUNNING" && row.agentServerUrl) return row;
  if (row.status === "PAUSED" || row.status === "STOPPING") {
    throw new AppError(
      "SANDBOX_NOT_RUNNING",
      `Sandbox ${id} is ${row.status}; resume it with POST /api/v1/sandboxes/${id}/resume first`,
      { details: { sandbox_id: id, sandbox_status: row.status } },
    );
  }
  const reason =
    row.status === "STARTING"
      ? `did not become RUNNING within ${deps.config.conversationStartTimeoutMs} ms`
      : `is ${row.status}${row.statusDetail ? `: ${row.statusDetail}` : ""}`;
  throw new AppError("SANDBOX_START_FAILED", `Sandbox ${id} ${reason}`, {
    details: { sandbox_id: id, sandbox_status: row.status },
  });
}

async function createOnAgentServer(
  deps: Pick<CoreDeps, "agents" | "now">,
  sandbox: SandboxRow,
  conversationId: string,
  agent: object,
  input: CreateConversationInput,
  deadline: number,
): Promise<Created> {
  // The initial message goes as given: the agent server runs it unless it says `run: false`.
  const body = {
    conversation_id: conversationId,
    agent,
    ...(input.initial_message ? { initial_message: input.initial_message } : {}),
  };
  const response = await deps.agents.request(sandbox.agentServerUrl ?? "", sandbox.sessionApiKey, {
    method: "POST",
    path: "/api/conversations",
    body: JSON.stringify(body),
    timeoutMs: Math.max(1000, deadline - deps.now()),
  });
  if (response.status >= 400) {
    throw new AppError("AGENT_SERVER_REJECTED", agentErrorDetail(response.body), {
      status: response.status,
    });
  }
  const status = (response.body as { execution_status?: unknown } | null)?.execution_status;
  return { executionStatus: typeof status === "string" ? status : null };
}

/** Removes a sandbox a failed create started (under its lock; a failure is logged). */
export async function discardSandbox(deps: RemoveLockedSandboxDeps, id: string): Promise<void> {
  await deps.locks.run(id, async () => {
    const row = await deps.repos.sandboxes.get(id);
    if (!row) return;
    await removeSandbox(deps, row).catch((error: unknown) => {
      deps.log.error({ sandboxId: id, reason: errorMessage(error) }, "discarding sandbox failed");
    });
  });
}

/** What a create answers (and its `Idempotency-Key` replays): the READY task and the conversation. */
export function startedConversation(
  task: StartTaskRow,
  row: ConversationRow,
  sandbox: SandboxRow,
  executionStatus: string | null,
): StartedAppConversation {
  return StartedAppConversation.parse({
    ...toStartTask(task),
    ...toAppConversation(row, sandbox, executionStatus),
  });
}
