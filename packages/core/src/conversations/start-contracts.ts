import { AgentSpec, SendMessageRequest } from "@sandbox-server/agent-contracts";
import type { StartTaskRow } from "@sandbox-server/db";
import { z } from "zod";
import { Labels, pageInput, pageOf, Timestamp } from "../shared/contracts";
import { QueryDateTime } from "../shared/query-time";
import { iso } from "../shared/time";
import { AppConversation } from "./contracts";
import { ConversationId, ConversationIds } from "./conversation-id";

const optionalText = (max: number) => z.string().max(max).nullish();

/**
 * Our create body and OpenHands' AppConversationStartRequest in one: every field optional, `null`
 * as good as absent, unknown fields ignored (OpenHands' `agent_type`, `suggested_task`, `plugins`,
 * `processors`, `system_message_suffix` and `secrets` are accepted and not used; secrets are not
 * stored).
 */
export const CreateConversationInput = z
  .object({
    sandbox_id: z
      .string()
      .min(1)
      .max(64)
      .nullish()
      .describe("Add to this sandbox instead of starting one"),
    sandbox_spec_id: z.string().min(1).max(64).nullish(),
    conversation_id: ConversationId.nullish().describe("The new conversation's id (default: new)"),
    title: z
      .string()
      .max(10_000)
      .nullish()
      .transform((title) => title?.trim() || null),
    agent: AgentSpec.nullish().describe('Default {"kind":"shell"}'),
    initial_message: SendMessageRequest.nullish().describe(
      "Delivered when the conversation starts; it runs the agent unless it says run: false",
    ),
    metadata: Labels.nullish(),
    // OpenHands' fields: stored and answered back.
    parent_conversation_id: ConversationId.nullish(),
    selected_repository: optionalText(500),
    selected_branch: optionalText(500),
    git_provider: optionalText(64),
    trigger: optionalText(64),
    llm_model: optionalText(500),
    pr_number: z.array(z.number().int()).max(100).nullish(),
    public: z.boolean().nullish(),
  })
  .meta({ id: "AppConversationStartRequest" });
export type CreateConversationInput = z.infer<typeof CreateConversationInput>;

export const startTaskStatuses = [
  "WORKING",
  "WAITING_FOR_SANDBOX",
  "PREPARING_REPOSITORY",
  "RUNNING_SETUP_SCRIPT",
  "SETTING_UP_GIT_HOOKS",
  "SETTING_UP_SKILLS",
  "STARTING_CONVERSATION",
  "READY",
  "ERROR",
] as const;
export const StartTaskStatus = z.enum(startTaskStatuses).meta({
  id: "AppConversationStartTaskStatus",
});
export type StartTaskStatus = z.infer<typeof StartTaskStatus>;

const startTaskFields = {
  id: z.string().describe("The id of the conversation it creates"),
  created_by_user_id: z.string(),
  status: StartTaskStatus,
  detail: z.string().nullable().describe("Why it is in ERROR"),
  app_conversation_id: z.string().nullable().describe("Set once READY"),
  sandbox_id: z.string().nullable(),
  agent_server_url: z.string().nullable(),
  request: z.record(z.string(), z.unknown()).describe("The create request as accepted"),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const StartTask = z.object(startTaskFields).meta({ id: "AppConversationStartTask" });
export type StartTask = z.infer<typeof StartTask>;

/**
 * What a create answers: the conversation and, in the same object, its start task (READY). Our
 * clients read the conversation, OpenHands' clients the task; the task's id is the conversation's.
 */
export const StartedAppConversation = AppConversation.extend({
  status: startTaskFields.status,
  detail: startTaskFields.detail,
  app_conversation_id: startTaskFields.app_conversation_id,
  agent_server_url: startTaskFields.agent_server_url,
  request: startTaskFields.request,
}).meta({ id: "StartedAppConversation" });
export type StartedAppConversation = z.infer<typeof StartedAppConversation>;

export const StartTaskPage = pageOf(StartTask, "AppConversationStartTaskPage");

export const StartTaskBatch = z.array(StartTask.nullable()).meta({
  id: "AppConversationStartTaskBatch",
});

export const BatchStartTasksInput = z.object({
  ids: ConversationIds.describe("Repeat the key: ids=a&ids=b"),
});

const startTaskFilter = {
  conversation_id__eq: ConversationId.optional(),
  created_at__gte: QueryDateTime.optional(),
};

export const CountStartTasksInput = z.object(startTaskFilter);

export const SearchStartTasksInput = z.object({
  ...startTaskFilter,
  ...pageInput,
  sort_order: z
    .enum(["CREATED_AT", "CREATED_AT_DESC", "UPDATED_AT", "UPDATED_AT_DESC"])
    .default("CREATED_AT_DESC"),
});
export type SearchStartTasksInput = z.infer<typeof SearchStartTasksInput>;

export function toStartTask(row: StartTaskRow): StartTask {
  return {
    id: row.id,
    created_by_user_id: row.ownerId,
    status: row.status as StartTaskStatus,
    detail: row.detail,
    app_conversation_id: row.appConversationId,
    sandbox_id: row.sandboxId,
    agent_server_url: row.agentServerUrl,
    request: row.request,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
