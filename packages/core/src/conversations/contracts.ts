import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import { z } from "zod";
import { AgentSpec, ExecutionStatus, SendMessageRequest } from "../agent-contracts";
import { SandboxStatus } from "../sandboxes/contracts";
import { Labels, pageInput, pageOf, QueryBoolean, Timestamp } from "../shared/contracts";
import { iso } from "../shared/time";

/** Any 8-4-4-4-12 hex id, as the agent server accepts; compared lower-case. */
export const ConversationId = z
  .guid("conversation id must be a UUID")
  .transform((id) => id.toLowerCase());

export const AppConversation = z
  .object({
    id: z.string(),
    sandbox_id: z.string(),
    sandbox_status: SandboxStatus.nullable().describe("null once the sandbox no longer exists"),
    title: z.string().nullable(),
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
  })
  .meta({ id: "AppConversation" });
export type AppConversation = z.infer<typeof AppConversation>;

export const AppConversationPage = pageOf(AppConversation, "AppConversationPage");

export const CreateConversationInput = z.object({
  sandbox_id: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("Add to this sandbox instead of starting one"),
  sandbox_spec_id: z.string().min(1).max(64).optional(),
  title: z.string().trim().min(1).max(200).optional(),
  agent: AgentSpec.optional().describe('Default {"kind":"shell"}'),
  initial_message: SendMessageRequest.optional(),
  metadata: Labels.optional(),
});
export type CreateConversationInput = z.infer<typeof CreateConversationInput>;

export const ListConversationsInput = z.object({
  ...pageInput,
  sandbox_id: z.string().min(1).max(64).optional(),
  archived: QueryBoolean.optional(),
  title__contains: z.string().min(1).max(200).optional(),
  sort_order: z
    .enum(["CREATED_AT", "CREATED_AT_DESC", "UPDATED_AT", "UPDATED_AT_DESC"])
    .default("CREATED_AT_DESC"),
});
export type ListConversationsInput = z.infer<typeof ListConversationsInput>;

export const GetConversationInput = z.object({ id: ConversationId });

export const SendMessageInput = SendMessageRequest.extend({ conversation_id: ConversationId });

export const AppSendMessageResponse = z
  .object({
    success: z.boolean().describe("Whether the message was sent to the agent"),
    sandbox_status: SandboxStatus.describe("Sandbox status after the operation"),
    message: z.string().nullable().optional(),
  })
  .meta({ id: "AppSendMessageResponse" });
export type AppSendMessageResponse = z.infer<typeof AppSendMessageResponse>;

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
    sandbox_status: (sandbox?.status as SandboxStatus | undefined) ?? null,
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
  };
}
