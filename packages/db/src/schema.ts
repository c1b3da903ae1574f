import { DEFAULT_SANDBOX_EGRESS, type SandboxEgressPolicy } from "@sandbox-server/egress";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Times are Unix epoch milliseconds; the API renders them as ISO strings. */
const createdAt = () => integer("created_at").notNull();
const updatedAt = () => integer("updated_at").notNull();

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
  /** Set while an admin has disabled the user: every key is refused. */
  disabledAt: integer("disabled_at"),
  /**
   * Set once an admin deleted the user. The row stays as a tombstone, so the user's archived
   * conversations keep their owner; the user's keys are gone and the API answers 404 for them.
   */
  deletedAt: integer("deleted_at"),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    /** sha256 of the key; the key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull(),
    /** First characters of the key, so a user can tell keys apart. */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.keyHash)],
);

export const sandboxSpecs = sqliteTable("sandbox_specs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  /** Which runtime can run it: "process", "docker", or "any". */
  runtime: text("runtime").notNull().default("any"),
  image: text("image"),
  command: text("command", { mode: "json" }).$type<string[]>(),
  workingDir: text("working_dir"),
  initialEnv: text("initial_env", { mode: "json" }).$type<Record<string, string>>().notNull(),
  cpu: real("cpu"),
  memoryMb: integer("memory_mb"),
  pids: integer("pids"),
  /** The egress policy of the spec's sandboxes unless a create sets one; null: the server's default. */
  network: text("network", { mode: "json" }).$type<SandboxEgressPolicy>(),
  createdAt: createdAt(),
  /** Lifetime defaults of its sandboxes (`timeout_s`, …); null: the operator's defaults. */
  lifetime: text("lifetime", { mode: "json" }).$type<SpecLifetime>(),
});

/** A spec's lifetime defaults, in seconds as the API spells them; absent: the operator's default. */
export interface SpecLifetime {
  timeout_s?: number;
  on_timeout?: "pause" | "delete";
  idle_pause_after_s?: number;
  delete_paused_after_s?: number;
}

/** A port a sandbox's owner declared at create: listed in `exposed_urls` under its name. */
export interface DeclaredPort {
  port: number;
  name: string;
}

/** How a sandbox's ports are reached (see core's `sandboxes/ports`). */
export interface SandboxPortAccess {
  declared: DeclaredPort[];
  /** A port URL opened while the sandbox is PAUSED resumes it. */
  autoResume: boolean;
}

export const NO_PORT_ACCESS: SandboxPortAccess = { declared: [], autoResume: false };

export const sandboxes = sqliteTable(
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
    /** Sealed by the store (`enc:v1:…`): the control plane presents it to the agent server. */
    sessionApiKey: text("session_api_key").notNull(),
    agentServerUrl: text("agent_server_url"),
    labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull(),
    env: text("env", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** The egress policy in force (allow_internet, allow_out, deny_out). */
    network: text("network", { mode: "json" })
      .$type<SandboxEgressPolicy>()
      .notNull()
      .default(DEFAULT_SANDBOX_EGRESS),
    lastActivityAt: integer("last_activity_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /*
     * Lifetime (see core's `sandboxes/lifetime`). Times in ms. Active time is `activeMs` plus, while
     * the sandbox is not PAUSED, the time since `runningSince`; paused time never counts.
     */
    /** Active time allowed in all (`timeout_s` from when it was set); null: no timeout. */
    activeLimitMs: integer("active_limit_ms"),
    /** `pause` or `delete` once the active time reaches `activeLimitMs`. */
    onTimeout: text("on_timeout"),
    idlePauseAfterMs: integer("idle_pause_after_ms"),
    deletePausedAfterMs: integer("delete_paused_after_ms"),
    /** Active time accumulated before `runningSince`. */
    activeMs: integer("active_ms").notNull().default(0),
    /** Start of the current active stretch; null while PAUSED. */
    runningSince: integer("running_since"),
    pausedAt: integer("paused_at"),
    /** The earliest moment a lifetime rule may fire; the sweep reads only rows due by now. */
    lifetimeDueAt: integer("lifetime_due_at"),
    portAccess: text("port_access", { mode: "json" })
      .$type<SandboxPortAccess>()
      .notNull()
      .default(NO_PORT_ACCESS),
  },
  (t) => [
    index("sandboxes_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("sandboxes_status_idx").on(t.status),
    index("sandboxes_lifetime_due_idx").on(t.lifetimeDueAt),
  ],
);

export const conversations = sqliteTable(
  "conversations",
  {
    id: text("id").primaryKey(),
    sandboxId: text("sandbox_id").notNull(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    title: text("title"),
    agent: text("agent", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    executionStatus: text("execution_status"),
    lastEventAt: integer("last_event_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /*
     * What OpenHands clients send and read back (AppConversationInfo); stored as given, used by
     * nothing else. A conversation with a parent is a sub-conversation (left out of searches
     * unless asked for).
     */
    parentConversationId: text("parent_conversation_id"),
    public: integer("public", { mode: "boolean" }),
    selectedRepository: text("selected_repository"),
    selectedBranch: text("selected_branch"),
    gitProvider: text("git_provider"),
    trigger: text("trigger"),
    llmModel: text("llm_model"),
    prNumber: text("pr_number", { mode: "json" }).$type<number[]>().notNull().default([]),
  },
  (t) => [
    index("conversations_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("conversations_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    index("conversations_sandbox_idx").on(t.sandboxId),
  ],
);

/**
 * One create of a conversation, as OpenHands clients follow it (AppConversationStartTask): its
 * id is the conversation's id, it moves WORKING → WAITING_FOR_SANDBOX → STARTING_CONVERSATION →
 * READY, or to ERROR with `detail` — and stays readable after a failed create, which leaves no
 * conversation behind.
 */
export const conversationStartTasks = sqliteTable(
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
    /** The create request as accepted (defaults filled). */
    request: text("request", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The replica running the create: an unfinished task of a dead replica is reconciled. */
    replicaId: text("replica_id"),
    /** The create's `Idempotency-Key` record, completed or released with the task. */
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

/**
 * Events of conversations, as the control plane received them from agent servers. The id is the
 * agent server's event id, so a resent event is never stored twice.
 */
export const conversationEvents = sqliteTable(
  "conversation_events",
  {
    id: text("id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    ownerId: text("owner_id").notNull(),
    /** The agent server's timestamp as sent (UTC ISO, microseconds): `after_timestamp` on resume. */
    timestamp: text("timestamp").notNull(),
    /** The same instant in microseconds since the epoch: the ordering key (unique per conversation). */
    timestampUs: integer("timestamp_us").notNull(),
    kind: text("kind").notNull(),
    source: text("source").notNull(),
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    receivedAt: integer("received_at").notNull(),
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

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    url: text("url").notNull(),
    /** Event kinds to deliver; null delivers every kind. */
    events: text("events", { mode: "json" }).$type<string[]>(),
    /** Only this conversation's events (and its sandbox's lifecycle); null for all of the owner's. */
    conversationId: text("conversation_id"),
    /** The HMAC key, sealed by the store (`enc:v1:…`, see `secrets/`): every signature needs it. */
    secret: text("secret").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhooks_owner_created_idx").on(t.ownerId, t.createdAt, t.id)],
);

/**
 * The outbox: one row per (webhook, event), written in the transaction that records the event.
 * Rows of one stream (a conversation, or a sandbox's lifecycle) are delivered in `seq` order.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    stream: text("stream").notNull(),
    eventId: text("event_id").notNull(),
    eventKind: text("event_kind").notNull(),
    /** The exact JSON body posted on every attempt. */
    payload: text("payload").notNull(),
    /** pending | succeeded | failed */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    completedAt: integer("completed_at"),
    /**
     * The replica sending it right now and until when (a claim, so that two delivery workers
     * never send a row at once); null when nobody is. An expired claim is free again.
     */
    claimedBy: text("claimed_by"),
    claimedUntil: integer("claimed_until"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_id_idx").on(t.id),
    index("webhook_deliveries_pending_idx").on(t.status, t.webhookId, t.stream, t.seq),
    index("webhook_deliveries_webhook_seq_idx").on(t.webhookId, t.seq),
  ],
);

/**
 * `Idempotency-Key`s of creates, per user, kept 24 h. A row is claimed (`in_progress`) before the
 * create runs and `completed` with the response it answered; a failed create removes its row. The
 * response (which may hold a secret shown once: an API key, a webhook secret, a session key) is
 * sealed by the store like every other secret; `request_hash` is sha256 of the procedure path and
 * the canonical input, so the same key with another body is told apart.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** in_progress | completed */
    status: text("status").notNull(),
    responseStatus: integer("response_status"),
    /** The response body as JSON, sealed (`enc:v1:…`); null while in progress. */
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("idempotency_keys_user_key_idx").on(t.userId, t.key),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

/**
 * Leases: a name (a background duty such as `duties`, a replica's heartbeat `replica:<id>`, a
 * sandbox's lifecycle lock `sandbox:<id>`) held by one control-plane replica (`holder`, a random id
 * per process) until `expires_at`; the holder renews it before then, anyone may take it after.
 */
export const leases = sqliteTable("leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  /** When it was taken by this holder (renewals keep it). */
  acquiredAt: integer("acquired_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

/**
 * The secrets key the database was first opened with, as a check value (an HMAC of a constant
 * under the key, never the key): a later start with another key is refused, however few secrets
 * are stored yet. One row, written by the first start (insert-if-absent).
 */
export const secretsKeyCheck = sqliteTable("secrets_key_check", {
  id: text("id").primaryKey(),
  checkValue: text("check_value").notNull(),
  createdAt: createdAt(),
});
