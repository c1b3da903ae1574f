import { ExecutionStatus, SendMessageRequest } from "@sandbox-server/agent-contracts";
import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import { z } from "zod";
import { SandboxStatus, sandboxStatuses } from "../sandboxes/contracts";
import { Timestamp } from "../shared/contracts";
import { iso } from "../shared/time";
import { ConversationId } from "./conversation-id";

export { ConversationId } from "./conversation-id";

/** A sandbox's status as a conversation sees it: MISSING once the sandbox no longer exists. */
export const ConversationSandboxStatus = z
  .enum([...sandboxStatuses, "MISSING"])
  .meta({ id: "ConversationSandboxStatus" });
export type ConversationSandboxStatus = z.infer<typeof ConversationSandboxStatus>;

const text = z.string().nullable();

export const AppConversation = z
  .object({
    id: z.string(),
    sandbox_id: z.string(),
    sandbox_status: ConversationSandboxStatus.describe(
      "MISSING once the sandbox no longer exists (the conversation is then archived)",
    ),
    title: text,
    created_by_user_id: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
    archived: z.boolean().describe("true once its sandbox no longer exists"),
    execution_status: ExecutionStatus.nullable().describe(
      "From the agent server; null when unknown",
    ),
    conversation_url: z
      .string()
      .nullable()
      .describe("{agent_server_url}/api/conversations/{id}; null unless the sandbox is RUNNING"),
    session_api_key: z.string().nullable().describe("X-Session-API-Key for conversation_url"),
    agent: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), z.string()),
    // OpenHands' AppConversation fields, so its clients read what they expect.
    tags: z.record(z.string(), z.string()).describe("The same map as `metadata`"),
    agent_kind: z.string().describe('Always "openhands" (the agent itself is in `agent`)'),
    llm_model: text,
    selected_repository: text,
    selected_branch: text,
    git_provider: text,
    trigger: text,
    pr_number: z.array(z.number().int()),
    public: z.boolean().nullable(),
    parent_conversation_id: text,
    sub_conversation_ids: z.array(z.string()).describe("Always empty (not tracked)"),
    metrics: z.record(z.string(), z.unknown()).nullable().describe("Always null (not tracked)"),
  })
  .meta({ id: "AppConversation" });
export type AppConversation = z.infer<typeof AppConversation>;

export const GetConversationInput = z.object({ id: ConversationId });

export const ConversationIdInput = z.object({ conversation_id: ConversationId });

export const SendMessageInput = SendMessageRequest.extend({ conversation_id: ConversationId });

export const AppSendMessageResponse = z
  .object({
    success: z.boolean().describe("Whether the message was sent to the agent"),
    sandbox_status: SandboxStatus.describe("Sandbox status after the operation"),
    message: z.string().nullable().optional(),
  })
  .meta({ id: "AppSendMessageResponse" });
export type AppSendMessageResponse = z.infer<typeof AppSendMessageResponse>;

export const Success = z.object({ success: z.boolean() }).meta({ id: "Success" });

/** The model an llm agent runs, when the conversation did not name one itself. */
function modelOf(row: ConversationRow): string | null {
  if (row.llmModel) return row.llmModel;
  const agent = row.agent as { model?: unknown; llm?: { model?: unknown } };
  const model = agent.model ?? agent.llm?.model;
  return typeof model === "string" ? model : null;
}

export function toAppConversation(
  row: ConversationRow,
  sandbox: SandboxRow | undefined,
  liveStatus?: string | null,
): AppConversation {
  const running = sandbox?.status === "RUNNING" && sandbox.agentServerUrl !== null;
  const status = liveStatus ?? row.executionStatus;
  const parsedStatus = ExecutionStatus.safeParse(status);
  return {
    id: row.id,
    sandbox_id: row.sandboxId,
    sandbox_status: (sandbox?.status as SandboxStatus | undefined) ?? "MISSING",
    title: row.title,
    created_by_user_id: row.ownerId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    archived: row.archived,
    execution_status: parsedStatus.success ? parsedStatus.data : null,
    conversation_url: running ? `${sandbox.agentServerUrl}/api/conversations/${row.id}` : null,
    session_api_key: sandbox ? sandbox.sessionApiKey : null,
    agent: row.agent,
    metadata: row.metadata,
    tags: row.metadata,
    agent_kind: "openhands",
    llm_model: modelOf(row),
    selected_repository: row.selectedRepository,
    selected_branch: row.selectedBranch,
    git_provider: row.gitProvider,
    trigger: row.trigger,
    pr_number: row.prNumber,
    public: row.public,
    parent_conversation_id: row.parentConversationId,
    sub_conversation_ids: [],
    metrics: null,
  };
}
