import { DEFAULT_SANDBOX_EGRESS, type SandboxEgressPolicy } from "@sandbox-server/egress";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  json,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { NO_PORT_ACCESS, type SandboxPortAccess, type SpecLifetime } from "../schema";

/*
 * The PostgreSQL tables: the same tables, columns and indexes as `../schema.ts` (SQLite), in the
 * pg dialect. Each table infers the same row type as its SQLite twin (checked at compile time in
 * `row-types.ts`), so both adapters implement the one store port. Change both files together,
 * then generate a migration for each (`npm run generate` and `npm run generate:pg`).
 *
 * Times are Unix epoch milliseconds in `bigint` (read as JS numbers); JSON columns are `jsonb`,
 * except an event's `body`, kept as `json` so its text (key order) comes back as it was stored.
 */
const millis = (name: string) => bigint(name, { mode: "number" });
const createdAt = () => millis("created_at").notNull();
const updatedAt = () => millis("updated_at").notNull();

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isAdmin: boolean("is_admin").notNull().default(false),
  createdAt: createdAt(),
  disabledAt: millis("disabled_at"),
  deletedAt: millis("deleted_at"),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull(),
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: millis("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.keyHash)],
);

export const sandboxSpecs = pgTable("sandbox_specs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  runtime: text("runtime").notNull().default("any"),
  image: text("image"),
  command: jsonb("command").$type<string[]>(),
  workingDir: text("working_dir"),
  initialEnv: jsonb("initial_env").$type<Record<string, string>>().notNull(),
  cpu: doublePrecision("cpu"),
  memoryMb: bigint("memory_mb", { mode: "number" }),
  pids: bigint("pids", { mode: "number" }),
  /** The egress policy of the spec's sandboxes unless a create sets one; null: the server's default. */
  network: jsonb("network").$type<SandboxEgressPolicy>(),
  createdAt: createdAt(),
  lifetime: jsonb("lifetime").$type<SpecLifetime>(),
});

export const sandboxes = pgTable(
  "sandboxes",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    specId: text("spec_id").notNull(),
    runtime: text("runtime").notNull(),
    status: text("status").notNull(),
    statusDetail: text("status_detail"),
    /** Sealed by the store (`enc:v1:…`). */
    sessionApiKey: text("session_api_key").notNull(),
    agentServerUrl: text("agent_server_url"),
    labels: jsonb("labels").$type<Record<string, string>>().notNull(),
    env: jsonb("env").$type<Record<string, string>>().notNull(),
    /** The egress policy in force (allow_internet, allow_out, deny_out). */
    network: jsonb("network")
      .$type<SandboxEgressPolicy>()
      .notNull()
      .default(DEFAULT_SANDBOX_EGRESS),
    lastActivityAt: millis("last_activity_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    activeLimitMs: millis("active_limit_ms"),
    onTimeout: text("on_timeout"),
    idlePauseAfterMs: millis("idle_pause_after_ms"),
    deletePausedAfterMs: millis("delete_paused_after_ms"),
    activeMs: millis("active_ms").notNull().default(0),
    runningSince: millis("running_since"),
    pausedAt: millis("paused_at"),
    lifetimeDueAt: millis("lifetime_due_at"),
    portAccess: jsonb("port_access").$type<SandboxPortAccess>().notNull().default(NO_PORT_ACCESS),
  },
  (t) => [
    index("sandboxes_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("sandboxes_status_idx").on(t.status),
    index("sandboxes_lifetime_due_idx").on(t.lifetimeDueAt),
  ],
);

export const conversations = pgTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    sandboxId: text("sandbox_id").notNull(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    title: text("title"),
    agent: jsonb("agent").$type<Record<string, unknown>>().notNull(),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull(),
    archived: boolean("archived").notNull().default(false),
    executionStatus: text("execution_status"),
    lastEventAt: millis("last_event_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    parentConversationId: text("parent_conversation_id"),
    public: boolean("public"),
    selectedRepository: text("selected_repository"),
    selectedBranch: text("selected_branch"),
    gitProvider: text("git_provider"),
    trigger: text("trigger"),
    llmModel: text("llm_model"),
    prNumber: jsonb("pr_number").$type<number[]>().notNull().default([]),
  },
  (t) => [
    index("conversations_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("conversations_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    index("conversations_sandbox_idx").on(t.sandboxId),
  ],
);

export const conversationStartTasks = pgTable(
  "conversation_start_tasks",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    status: text("status").notNull(),
    detail: text("detail"),
    appConversationId: text("app_conversation_id"),
    sandboxId: text("sandbox_id"),
    agentServerUrl: text("agent_server_url"),
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    replicaId: text("replica_id"),
    idempotencyRecordId: text("idempotency_record_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("conversation_start_tasks_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("conversation_start_tasks_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    index("conversation_start_tasks_status_idx").on(t.status),
  ],
);

export const conversationEvents = pgTable(
  "conversation_events",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    ownerId: text("owner_id").notNull(),
    timestamp: text("timestamp").notNull(),
    timestampUs: bigint("timestamp_us", { mode: "number" }).notNull(),
    kind: text("kind").notNull(),
    source: text("source").notNull(),
    body: json("body").$type<Record<string, unknown>>().notNull(),
    receivedAt: millis("received_at").notNull(),
  },
  (t) => [
    index("conversation_events_conversation_ts_idx").on(t.conversationId, t.timestampUs, t.id),
    index("conversation_events_conversation_kind_ts_idx").on(
      t.conversationId,
      t.kind,
      t.timestampUs,
      t.id,
    ),
  ],
);

export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    url: text("url").notNull(),
    events: jsonb("events").$type<string[]>(),
    conversationId: text("conversation_id"),
    /** Sealed by the store (`enc:v1:…`). */
    secret: text("secret").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_owner_created_idx").on(t.ownerId, t.createdAt, t.id)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: text("id").notNull(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    stream: text("stream").notNull(),
    eventId: text("event_id").notNull(),
    eventKind: text("event_kind").notNull(),
    payload: text("payload").notNull(),
    status: text("status").notNull(),
    attempts: bigint("attempts", { mode: "number" }).notNull().default(0),
    nextAttemptAt: millis("next_attempt_at").notNull(),
    lastStatusCode: bigint("last_status_code", { mode: "number" }),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: millis("completed_at"),
    claimedBy: text("claimed_by"),
    claimedUntil: millis("claimed_until"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_id_idx").on(t.id),
    index("webhook_deliveries_pending_idx").on(t.status, t.webhookId, t.stream, t.seq),
    index("webhook_deliveries_webhook_seq_idx").on(t.webhookId, t.seq),
  ],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: text("status").notNull(),
    responseStatus: bigint("response_status", { mode: "number" }),
    /** The response body as JSON, sealed (`enc:v1:…`); null while in progress. */
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("idempotency_keys_user_key_idx").on(t.userId, t.key),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

export const leases = pgTable("leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  acquiredAt: millis("acquired_at").notNull(),
  expiresAt: millis("expires_at").notNull(),
});

export const secretsKeyCheck = pgTable("secrets_key_check", {
  id: text("id").primaryKey(),
  checkValue: text("check_value").notNull(),
  createdAt: createdAt(),
});
