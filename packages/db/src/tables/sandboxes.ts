import { DEFAULT_SANDBOX_EGRESS, type SandboxEgressPolicy } from "@sandbox-server/egress";
import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";
import { json, ms, type SameRow } from "./columns";
import { userRef } from "./users";

export const sandboxSpecs = s.sqliteTable("sandbox_specs", {
  id: s.text("id").primaryKey(),
  name: s.text("name").notNull(),
  description: s.text("description").notNull().default(""),
  /** Which runtime can run it: "process", "docker", or "any". */
  runtime: s.text("runtime").notNull().default("any"),
  image: s.text("image"),
  command: json.sqlite<string[]>("command"),
  workingDir: s.text("working_dir"),
  initialEnv: json.sqlite<Record<string, string>>("initial_env").notNull(),
  cpu: s.real("cpu"),
  memoryMb: s.integer("memory_mb"),
  pids: s.integer("pids"),
  /** The egress policy of the spec's sandboxes unless a create sets one; null: the server's default. */
  network: json.sqlite<SandboxEgressPolicy>("network"),
  createdAt: ms.sqlite("created_at").notNull(),
  /** Lifetime defaults of its sandboxes (`timeout_s`, …); null: the operator's defaults. */
  lifetime: json.sqlite<SpecLifetime>("lifetime"),
});

export const pgSandboxSpecs = p.pgTable("sandbox_specs", {
  id: p.text("id").primaryKey(),
  name: p.text("name").notNull(),
  description: p.text("description").notNull().default(""),
  runtime: p.text("runtime").notNull().default("any"),
  image: p.text("image"),
  command: json.pg<string[]>("command"),
  workingDir: p.text("working_dir"),
  initialEnv: json.pg<Record<string, string>>("initial_env").notNull(),
  cpu: p.doublePrecision("cpu"),
  memoryMb: p.bigint("memory_mb", { mode: "number" }),
  pids: p.bigint("pids", { mode: "number" }),
  network: json.pg<SandboxEgressPolicy>("network"),
  createdAt: ms.pg("created_at").notNull(),
  lifetime: json.pg<SpecLifetime>("lifetime"),
});

export type SandboxSpecsRowsMatch = SameRow<typeof pgSandboxSpecs, typeof sandboxSpecs>;

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

export const sandboxes = s.sqliteTable(
  "sandboxes",
  {
    id: s.text("id").primaryKey(),
    ownerId: userRef.sqlite("owner_id"),
    specId: s.text("spec_id").notNull(),
    runtime: s.text("runtime").notNull(),
    status: s.text("status").notNull(),
    statusDetail: s.text("status_detail"),
    /** Sealed by the store (`enc:v1:…`): the control plane presents it to the agent server. */
    sessionApiKey: s.text("session_api_key").notNull(),
    agentServerUrl: s.text("agent_server_url"),
    labels: json.sqlite<Record<string, string>>("labels").notNull(),
    env: json.sqlite<Record<string, string>>("env").notNull(),
    /** The egress policy in force (allow_internet, allow_out, deny_out). */
    network: json.sqlite<SandboxEgressPolicy>("network").notNull().default(DEFAULT_SANDBOX_EGRESS),
    lastActivityAt: s.integer("last_activity_at"),
    createdAt: ms.sqlite("created_at").notNull(),
    updatedAt: ms.sqlite("updated_at").notNull(),
    /*
     * Lifetime (see core's `sandboxes/lifetime`). Times in ms. Active time is `activeMs` plus, while
     * the sandbox is not PAUSED, the time since `runningSince`; paused time never counts.
     */
    /** Active time allowed in all (`timeout_s` from when it was set); null: no timeout. */
    activeLimitMs: s.integer("active_limit_ms"),
    /** `pause` or `delete` once the active time reaches `activeLimitMs`. */
    onTimeout: s.text("on_timeout"),
    idlePauseAfterMs: s.integer("idle_pause_after_ms"),
    deletePausedAfterMs: s.integer("delete_paused_after_ms"),
    /** Active time accumulated before `runningSince`. */
    activeMs: s.integer("active_ms").notNull().default(0),
    /** Start of the current active stretch; null while PAUSED. */
    runningSince: s.integer("running_since"),
    pausedAt: s.integer("paused_at"),
    /** The earliest moment a lifetime rule may fire; the sweep reads only rows due by now. */
    lifetimeDueAt: s.integer("lifetime_due_at"),
    portAccess: json.sqlite<SandboxPortAccess>("port_access").notNull().default(NO_PORT_ACCESS),
  },
  (t) => [
    s.index("sandboxes_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    s.index("sandboxes_status_idx").on(t.status),
    s.index("sandboxes_lifetime_due_idx").on(t.lifetimeDueAt),
  ],
);

export const pgSandboxes = p.pgTable(
  "sandboxes",
  {
    id: p.text("id").primaryKey(),
    ownerId: userRef.pg("owner_id"),
    specId: p.text("spec_id").notNull(),
    runtime: p.text("runtime").notNull(),
    status: p.text("status").notNull(),
    statusDetail: p.text("status_detail"),
    /** Sealed by the store (`enc:v1:…`). */
    sessionApiKey: p.text("session_api_key").notNull(),
    agentServerUrl: p.text("agent_server_url"),
    labels: json.pg<Record<string, string>>("labels").notNull(),
    env: json.pg<Record<string, string>>("env").notNull(),
    network: json.pg<SandboxEgressPolicy>("network").notNull().default(DEFAULT_SANDBOX_EGRESS),
    lastActivityAt: ms.pg("last_activity_at"),
    createdAt: ms.pg("created_at").notNull(),
    updatedAt: ms.pg("updated_at").notNull(),
    activeLimitMs: ms.pg("active_limit_ms"),
    onTimeout: p.text("on_timeout"),
    idlePauseAfterMs: ms.pg("idle_pause_after_ms"),
    deletePausedAfterMs: ms.pg("delete_paused_after_ms"),
    activeMs: ms.pg("active_ms").notNull().default(0),
    runningSince: ms.pg("running_since"),
    pausedAt: ms.pg("paused_at"),
    lifetimeDueAt: ms.pg("lifetime_due_at"),
    portAccess: json.pg<SandboxPortAccess>("port_access").notNull().default(NO_PORT_ACCESS),
  },
  (t) => [
    p.index("sandboxes_owner_created_idx").on(t.ownerId, t.createdAt, t.id),
    p.index("sandboxes_status_idx").on(t.status),
    p.index("sandboxes_lifetime_due_idx").on(t.lifetimeDueAt),
  ],
);

export type SandboxesRowsMatch = SameRow<typeof pgSandboxes, typeof sandboxes>;
