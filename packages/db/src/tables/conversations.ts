import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";
import { json, ms, type SameRow } from "./columns";
import { userRef } from "./users";

export const conversations = s.sqliteTable(
  "conversations",
  {
    id: s.text("id").primaryKey(),
    sandboxId: s.text("sandbox_id").notNull(),
    ownerId: userRef.sqlite("owner_id"),
    title: s.text("title"),
    agent: json.sqlite<Record<string, unknown>>("agent").notNull(),
    metadata: json.sqlite<Record<string, string>>("metadata").notNull(),
    archived: s.integer("archived", { mode: "boolean" }).notNull().default(false),
    executionStatus: s.text("execution_status"),
    lastEventAt: s.integer("last_event_at"),
    createdAt: ms.sqlite("created_at").notNull(),
    updatedAt: ms.sqlite("updated_at").notNull(),
    /*
     * What OpenHands clients send and read back (AppConversationInfo); stored as given, used by
     * nothing else. A conversation with a parent is a sub-conversation (left out of searches
     * unless asked for).
     */
    parentConversationId: s.text("parent_conversation_id"),
    public: s.integer("public", { mode: "boolean" }),
    selectedRepository: s.text("selected_repository"),
    selectedBranch: s.text("selected_branch"),
    gitProvider: s.text("git_provider"),
    trigger: s.text("trigger"),
    llmModel: s.text("llm_model"),
    prNumber: json.sqlite<number[]>("pr_number").notNull().default([]),
  },
  (t) => [
    s.index("conversations_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    s.index("conversations_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    s.index("conversations_sandbox_idx").on(t.sandboxId),
  ],
);

export const pgConversations = p.pgTable(
  "conversations",
  {
    id: p.text("id").primaryKey(),
    sandboxId: p.text("sandbox_id").notNull(),
    ownerId: userRef.pg("owner_id"),
    title: p.text("title"),
    agent: json.pg<Record<string, unknown>>("agent").notNull(),
    metadata: json.pg<Record<string, string>>("metadata").notNull(),
    archived: p.boolean("archived").notNull().default(false),
    executionStatus: p.text("execution_status"),
    lastEventAt: ms.pg("last_event_at"),
    createdAt: ms.pg("created_at").notNull(),
    updatedAt: ms.pg("updated_at").notNull(),
    parentConversationId: p.text("parent_conversation_id"),
    public: p.boolean("public"),
    selectedRepository: p.text("selected_repository"),
    selectedBranch: p.text("selected_branch"),
    gitProvider: p.text("git_provider"),
    trigger: p.text("trigger"),
    llmModel: p.text("llm_model"),
    prNumber: json.pg<number[]>("pr_number").notNull().default([]),
  },
  (t) => [
    p.index("conversations_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    p.index("conversations_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    p.index("conversations_sandbox_idx").on(t.sandboxId),
  ],
);

export type ConversationsRowsMatch = SameRow<typeof pgConversations, typeof conversations>;

/**
 * One create of a conversation, as OpenHands clients follow it (AppConversationStartTask): its
 * id is the conversation's id, it moves WORKING → WAITING_FOR_SANDBOX → STARTING_CONVERSATION →
 * READY, or to ERROR with `detail` — and stays readable after a failed create, which leaves no
 * conversation behind.
 */
export const conversationStartTasks = s.sqliteTable(
  "conversation_start_tasks",
  {
    id: s.text("id").primaryKey(),
    ownerId: userRef.sqlite("owner_id"),
    status: s.text("status").notNull(),
    detail: s.text("detail"),
    appConversationId: s.text("app_conversation_id"),
    sandboxId: s.text("sandbox_id"),
    agentServerUrl: s.text("agent_server_url"),
    /** The create request as accepted (defaults filled). */
    request: json.sqlite<Record<string, unknown>>("request").notNull(),
    /** The replica running the create: an unfinished task of a dead replica is reconciled. */
    replicaId: s.text("replica_id"),
    /** The create's `Idempotency-Key` record, completed or released with the task. */
    idempotencyRecordId: s.text("idempotency_record_id"),
    createdAt: ms.sqlite("created_at").notNull(),
    updatedAt: ms.sqlite("updated_at").notNull(),
  },
  (t) => [
    s.index("conversation_start_tasks_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    s.index("conversation_start_tasks_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    s.index("conversation_start_tasks_status_idx").on(t.status),
  ],
);

export const pgConversationStartTasks = p.pgTable(
  "conversation_start_tasks",
  {
    id: p.text("id").primaryKey(),
    ownerId: userRef.pg("owner_id"),
    status: p.text("status").notNull(),
    detail: p.text("detail"),
    appConversationId: p.text("app_conversation_id"),
    sandboxId: p.text("sandbox_id"),
    agentServerUrl: p.text("agent_server_url"),
    request: json.pg<Record<string, unknown>>("request").notNull(),
    replicaId: p.text("replica_id"),
    idempotencyRecordId: p.text("idempotency_record_id"),
    createdAt: ms.pg("created_at").notNull(),
    updatedAt: ms.pg("updated_at").notNull(),
  },
  (t) => [
    p.index("conversation_start_tasks_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    p.index("conversation_start_tasks_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    p.index("conversation_start_tasks_status_idx").on(t.status),
  ],
);

export type ConversationStartTasksRowsMatch = SameRow<
  typeof pgConversationStartTasks,
  typeof conversationStartTasks
>;

/**
 * Events of conversations, as the control plane received them from agent servers. The id is the
 * agent server's event id, so a resent event is never stored twice.
 */
export const conversationEvents = s.sqliteTable(
  "conversation_events",
  {
    id: s.text("id").primaryKey(),
    conversationId: s.text("conversation_id").notNull(),
    ownerId: s.text("owner_id").notNull(),
    /** The agent server's timestamp as sent (UTC ISO, microseconds): `after_timestamp` on resume. */
    timestamp: s.text("timestamp").notNull(),
    /** The same instant in microseconds since the epoch: the ordering key (unique per conversation). */
    timestampUs: s.integer("timestamp_us").notNull(),
    kind: s.text("kind").notNull(),
    source: s.text("source").notNull(),
    body: json.sqlite<Record<string, unknown>>("body").notNull(),
    receivedAt: s.integer("received_at").notNull(),
  },
  (t) => [
    s.index("conversation_events_conversation_ts_idx").on(t.conversationId, t.timestampUs, t.id),
    s
      .index("conversation_events_conversation_kind_ts_idx")
      .on(t.conversationId, t.kind, t.timestampUs, t.id),
  ],
);

export const pgConversationEvents = p.pgTable(
  "conversation_events",
  {
    id: p.text("id").primaryKey(),
    conversationId: p.text("conversation_id").notNull(),
    ownerId: p.text("owner_id").notNull(),
    timestamp: p.text("timestamp").notNull(),
    timestampUs: p.bigint("timestamp_us", { mode: "number" }).notNull(),
    kind: p.text("kind").notNull(),
    source: p.text("source").notNull(),
    body: p.json("body").$type<Record<string, unknown>>().notNull(),
    receivedAt: ms.pg("received_at").notNull(),
  },
  (t) => [
    p.index("conversation_events_conversation_ts_idx").on(t.conversationId, t.timestampUs, t.id),
    p
      .index("conversation_events_conversation_kind_ts_idx")
      .on(t.conversationId, t.kind, t.timestampUs, t.id),
  ],
);

export type ConversationEventsRowsMatch = SameRow<
  typeof pgConversationEvents,
  typeof conversationEvents
>;
