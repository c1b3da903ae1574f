import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Times are Unix epoch milliseconds; the API renders them as ISO strings. */
const createdAt = () => integer("created_at").notNull();
const updatedAt = () => integer("updated_at").notNull();

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
  createdAt: createdAt(),
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
  createdAt: createdAt(),
});

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
    sessionApiKey: text("session_api_key").notNull(),
    agentServerUrl: text("agent_server_url"),
    labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull(),
    env: text("env", { mode: "json" }).$type<Record<string, string>>().notNull(),
    lastActivityAt: integer("last_activity_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("sandboxes_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("sandboxes_status_idx").on(t.status),
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
  },
  (t) => [
    index("conversations_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    index("conversations_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    index("conversations_sandbox_idx").on(t.sandboxId),
  ],
);
