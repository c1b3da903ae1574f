import { randomUUID } from "node:crypto";
import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import { agentErrorDetail } from "../../agent-client";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { removeSandbox } from "../../sandboxes/service/delete-sandbox";
import { startSandbox } from "../../sandboxes/service/start-sandbox";
import { errorMessage, findOwnedSandbox, waitWhileStarting } from "../../sandboxes/service/status";
import type { CreateConversationInput } from "../contracts";

const DEFAULT_AGENT = { kind: "shell" } as const;

export interface CreatedConversation {
  row: ConversationRow;
  sandbox: SandboxRow;
  executionStatus: string | null;
}

/**
 * Creates a conversation in a new sandbox (or an existing one of the caller's), waiting — bounded —
 * until the sandbox is RUNNING and the agent server holds the conversation under the same id.
 * When a sandbox started for this conversation fails, it is removed again: nothing half-made stays.
 */
export async function createConversation(
  deps: CoreDeps,
  ownerId: string,
  input: CreateConversationInput,
): Promise<CreatedConversation> {
  const deadline = deps.now() + deps.config.conversationStartTimeoutMs;
  const ownSandbox = input.sandbox_id === undefined;
  const sandboxId = ownSandbox
    ? (await startSandbox(deps, ownerId, { sandbox_spec_id: input.sandbox_spec_id })).row.id
    : (await findOwnedSandbox(deps, ownerId, input.sandbox_id ?? "")).id;
  try {
    const sandbox = await waitUntilRunning(deps, sandboxId, deadline);
    const conversationId = randomUUID();
    const agent = input.agent ?? DEFAULT_AGENT;
    const info = await createOnAgentServer(deps, sandbox, conversationId, agent, input, deadline);
    const now = deps.now();
    const row = await deps.repos.conversations.insert({
      id: conversationId,
      sandboxId: sandbox.id,
      ownerId,
      title: input.title ?? null,
      agent,
      metadata: input.metadata ?? {},
      archived: false,
      executionStatus: info.executionStatus,
      lastEventAt: null,
      createdAt: now,
      updatedAt: now,
    });
    deps.activity.set(sandbox.id, now);
    deps.log.info({ conversationId, sandboxId: sandbox.id }, "conversation created");
    deps.events.emit("conversation.created", row);
    return { row, sandbox, executionStatus: info.executionStatus };
  } catch (error) {
    if (ownSandbox) await discardSandbox(deps, sandboxId);
    throw error;
  }
}

async function waitUntilRunning(deps: CoreDeps, id: string, deadline: number): Promise<SandboxRow> {
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
  deps: CoreDeps,
  sandbox: SandboxRow,
  conversationId: string,
  agent: object,
  input: CreateConversationInput,
  deadline: number,
): Promise<{ executionStatus: string | null }> {
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

async function discardSandbox(deps: CoreDeps, id: string): Promise<void> {
  await deps.locks.run(id, async () => {
    const row = await deps.repos.sandboxes.get(id);
    if (!row) return;
    await removeSandbox(deps, row).catch((error: unknown) => {
      deps.log.error({ sandboxId: id, reason: errorMessage(error) }, "discarding sandbox failed");
    });
  });
}
