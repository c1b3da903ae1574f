import { z } from "zod";
import { SendMessageRequest } from "./messages";

/**
 * Conversation contracts of the agent server (a compatible subset of the OpenHands agent server).
 * Agent and workspace objects from OpenHands clients carry many more keys than we use; those are
 * kept (loose) so that a client reads back what it sent, and ignored by the agent server.
 */
export const ExecutionStatus = z.enum([
  "idle",
  "running",
  "paused",
  "waiting_for_confirmation",
  "finished",
  "error",
  "stuck",
]);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;

/** Deterministic agent: each user message's text runs as a bash command. */
export const ShellAgentSpec = z.looseObject({ kind: z.literal("shell") });
export type ShellAgentSpec = z.infer<typeof ShellAgentSpec>;

/** Agent loop over an OpenAI-compatible chat-completions endpoint. */
export const LlmAgentSpec = z.looseObject({
  kind: z.literal("llm"),
  model: z.string().min(1),
  base_url: z.url().optional(),
});
export type LlmAgentSpec = z.infer<typeof LlmAgentSpec>;

/** The OpenHands SDK's agent shape; runs as the llm agent. */
export const OpenHandsAgentSpec = z.looseObject({
  kind: z.literal("Agent"),
  llm: z.looseObject({
    model: z.string().min(1),
    api_key: z.string().nullish(),
    base_url: z.string().nullish(),
  }),
  tools: z.array(z.unknown()).optional(),
});
export type OpenHandsAgentSpec = z.infer<typeof OpenHandsAgentSpec>;

export const AgentSpec = z.discriminatedUnion("kind", [
  ShellAgentSpec,
  LlmAgentSpec,
  OpenHandsAgentSpec,
]);
export type AgentSpec = z.infer<typeof AgentSpec>;

/** Extra keys (`kind`, `type`, ...) are accepted and kept. */
export const WorkspaceSpec = z.looseObject({ working_dir: z.string().min(1).optional() });
export type WorkspaceSpec = z.infer<typeof WorkspaceSpec>;

export const CreateConversationRequest = z.object({
  // Any 8-4-4-4-12 hex id, like upstream's UUID type; stored lower-case.
  conversation_id: z.guid().optional(),
  agent: AgentSpec,
  workspace: WorkspaceSpec.optional(),
  initial_message: SendMessageRequest.nullish(),
  max_iterations: z.int().min(1).max(100_000).optional(),
  tags: z.record(z.string(), z.string()).optional(),
});
export type CreateConversationRequest = z.infer<typeof CreateConversationRequest>;

export const UpdateConversationRequest = z.object({
  title: z.string().max(500).nullish(),
  tags: z.record(z.string(), z.string()).optional(),
});
export type UpdateConversationRequest = z.infer<typeof UpdateConversationRequest>;

export const ConversationSortOrder = z.enum([
  "CREATED_AT",
  "CREATED_AT_DESC",
  "UPDATED_AT",
  "UPDATED_AT_DESC",
]);
export type ConversationSortOrder = z.infer<typeof ConversationSortOrder>;

export const ConversationInfo = z.object({
  id: z.guid(),
  agent: AgentSpec,
  workspace: z.looseObject({ working_dir: z.string() }),
  execution_status: ExecutionStatus,
  title: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  max_iterations: z.int(),
  stats: z.looseObject({ usage_to_metrics: z.record(z.string(), z.unknown()) }),
});
export type ConversationInfo = z.infer<typeof ConversationInfo>;

export const ConversationPage = z.object({
  items: z.array(ConversationInfo),
  next_page_id: z.string().nullable(),
});
export type ConversationPage = z.infer<typeof ConversationPage>;

/** Answer of PATCH, DELETE, run, pause and POST events. */
export const Success = z.object({ success: z.boolean() });
export type Success = z.infer<typeof Success>;
