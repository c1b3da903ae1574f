import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultMaxRunningSandboxes } from "@sandbox-server/core";
import { EgressEntryError, parseOperatorEgressPolicy } from "@sandbox-server/egress";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import { z } from "zod";
import { ConfigError } from "./config-error";
import { parseSecretsKey } from "./secrets-key";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The agent-server bundle, found from the source tree (tests, tsx) and from dist (bundle). */
const defaultAgentServerEntry = path.resolve(here, "../../agent-server/dist/agent-server.js");

function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "postgres:" || url.protocol === "postgresql:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const optionalPositiveInt = z.coerce.number().int().positive();
const DAY_S = 24 * 60 * 60;

/** `true`/`false` (also 1/0, yes/no) as environment variables spell them. */
const flag = z
  .enum(["true", "false", "1", "0", "yes", "no"], { message: "must be true or false" })
  .default("false")
  .transform((value) => value === "true" || value === "1" || value === "yes");

const EnvSchema = z.object({
  PORT: z.coerce
    .number({ message: "must be a port number (0-65535)" })
    .int("must be a port number (0-65535)")
    .min(0, "must be a port number (0-65535)")
    .max(65535, "must be a port number (0-65535)")
    .default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./.data"),
  ADMIN_API_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  SANDBOX_RUNTIME: z.enum(["auto", "docker", "process"]).default("auto"),
  MAX_RUNNING_SANDBOXES: optionalPositiveInt.default(defaultMaxRunningSandboxes(os.totalmem())),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SANDBOX_START_TIMEOUT_MS: optionalPositiveInt.default(60_000),
  CONVERSATION_START_TIMEOUT_MS: optionalPositiveInt.default(60_000),
  AGENT_REQUEST_TIMEOUT_MS: optionalPositiveInt.default(30_000),
  /** The default of idle_pause_after_s, in minutes (SANDBOX_IDLE_PAUSE_AFTER_S wins when both are set). */
  IDLE_AUTO_PAUSE_MINUTES: z.coerce.number().positive().optional(),
  /** Lifetime defaults of new sandboxes (a create's fields, then its spec's, win); unset: off. */
  SANDBOX_TIMEOUT_S: optionalPositiveInt.optional(),
  SANDBOX_ON_TIMEOUT: z.enum(["pause", "delete"]).default("pause"),
  SANDBOX_IDLE_PAUSE_AFTER_S: optionalPositiveInt.optional(),
  SANDBOX_DELETE_PAUSED_AFTER_S: optionalPositiveInt.optional(),
  /** The most a create or spec may ask for; a larger value is 422. */
  SANDBOX_MAX_TIMEOUT_S: optionalPositiveInt.default(30 * DAY_S),
  SANDBOX_MAX_IDLE_PAUSE_AFTER_S: optionalPositiveInt.default(30 * DAY_S),
  SANDBOX_MAX_DELETE_PAUSED_AFTER_S: optionalPositiveInt.default(365 * DAY_S),
  /** Pre-started sandboxes of the default spec that creates claim; they never take the last slot. */
  WARM_POOL_SIZE: z.coerce
    .number({ message: "must be a whole number from 0 to 64" })
    .int("must be a whole number from 0 to 64")
    .min(0, "must be a whole number from 0 to 64")
    .max(64, "must be a whole number from 0 to 64")
    .default(0),
  BODY_LIMIT_BYTES: optionalPositiveInt.default(1024 * 1024),
  AGENT_SERVER_ENTRY: z.string().min(1).default(defaultAgentServerEntry),
  SANDBOX_IMAGE: z.string().min(1).default(DEFAULT_SANDBOX_IMAGE),
  /** Read as the Docker CLI reads them: unix:///path, tcp://host:port (TLS from the cert path). */
  DOCKER_HOST: z.string().optional(),
  /** Several Docker hosts, `name=endpoint@address,...` (parsed in runtime.ts); wins over DOCKER_HOST. */
  DOCKER_HOSTS: z.string().optional(),
  DOCKER_TLS_VERIFY: z.string().optional(),
  DOCKER_TLS: z.string().optional(),
  DOCKER_CERT_PATH: z.string().optional(),
  SSH_AUTH_SOCK: z.string().optional(),
  /** OCI runtime for sandbox containers, e.g. `runsc` (gVisor); default: the daemon's. */
  DOCKER_RUNTIME: z.string().min(1).optional(),
  /** Host firewall rules that keep containers away from the host's own addresses. */
  DOCKER_HOST_FIREWALL: z.enum(["auto", "iptables", "off"]).default("auto"),
  WEBHOOK_TIMEOUT_MS: optionalPositiveInt.default(10_000),
  WEBHOOK_MAX_ATTEMPTS: optionalPositiveInt.default(8),
  WEBHOOK_BACKOFF_BASE_MS: optionalPositiveInt.default(2_000),
  WEBHOOK_BACKOFF_MAX_MS: optionalPositiveInt.default(15 * 60_000),
  WEBHOOK_CONCURRENCY: optionalPositiveInt.default(64),
  WEBHOOK_CONCURRENCY_PER_USER: optionalPositiveInt.default(16),
  /** Webhooks one user may register (409 WEBHOOK_LIMIT_REACHED beyond). */
  MAX_WEBHOOKS_PER_USER: optionalPositiveInt.default(100),
  FOLLOWER_RECONNECT_BASE_MS: optionalPositiveInt.default(500),
  FOLLOWER_RECONNECT_MAX_MS: optionalPositiveInt.default(30_000),
  /** Followed events larger than this are stored as a placeholder that says so. */
  STORED_EVENT_MAX_BYTES: optionalPositiveInt.default(1024 * 1024),
  /** Process runtime: `bwrap` demands bubblewrap, `none` runs sandboxes unisolated. */
  PROCESS_SANDBOXING: z.enum(["auto", "bwrap", "none"]).default("auto"),
  /**
   * Process runtime: how a sandbox's network namespace reaches out — `veth` (kernel routing and
   * NAT), `pasta` (a user-space process per sandbox), `auto` (veth where it works, else pasta).
   */
  PROCESS_NETWORK_LINK: z.enum(["auto", "veth", "pasta"]).default("auto"),
  /**
   * Process runtime: the CPU weight of all sandboxes together against the control plane's 100
   * (a cgroup v2 `cpu.weight`; v1 `cpu.shares` get the same ratio to 1024).
   */
  PROCESS_SANDBOX_CPU_WEIGHT: z.coerce.number().int().min(1).max(10_000).default(25),
  ALLOW_UNISOLATED_MULTI_USER: flag,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag,
  /**
   * Non-public destinations sandboxes may reach (`127.0.0.1:11434,10.0.0.0/8`): comma-separated
   * names, addresses or CIDRs with optional ports. Metadata addresses are refused; a loopback
   * entry needs a port.
   */
  SANDBOX_EGRESS_ALLOW: z
    .string()
    .default("")
    .transform((text, ctx) => {
      try {
        return parseOperatorEgressPolicy(text);
      } catch (error) {
        if (!(error instanceof EgressEntryError)) throw error;
        ctx.addIssue({ code: "custom", message: `entry ${error.message}` });
        return z.NEVER;
      }
    }),
  /** Bearer token for GET /metrics (admins' API keys work too). Never shown in errors (TOKEN). */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /**
   * `postgres://…`: metadata in PostgreSQL instead of SQLite in DATA_DIR. It may hold a password:
   * never shown in errors (see `loadEnv`).
   */
  DATABASE_URL: z
    .string()
    .optional()
    .refine((text) => text === undefined || isPostgresUrl(text), {
      message: "must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/db)",
    }),
  /**
   * Several replicas on one DATABASE_URL: a lease (background duties, a sandbox's lifecycle lock)
   * lasts LEASE_TTL_MS without renewal and is renewed every LEASE_RENEW_MS (less than the TTL).
   */
  LEASE_TTL_MS: optionalPositiveInt.default(15_000),
  LEASE_RENEW_MS: optionalPositiveInt.default(5_000),
  /**
   * A wildcard domain served by a TLS front that forwards to this server with the Host kept:
   * port URLs become `https://p{port}-{id}-{token}.{domain}/`. Absent: `http://…localhost:{PORT}/`.
   */
  PREVIEW_BASE_DOMAIN: z
    .string()
    .regex(
      /^(?=.{1,190}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/,
      "must be a lower-case domain name such as preview.example.com",
    )
    .optional(),
  /** The port URLs' signing key is derived from the secrets key and this; raising it revokes them all. */
  PORT_URL_KEY_GENERATION: optionalPositiveInt.default(1),
  /** Encrypts secrets at rest; absent: DATA_DIR/secrets-key. Never shown in errors (name has KEY). */
  SECRETS_KEY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const key = parseSecretsKey(text);
      if (key) return key;
      ctx.addIssue({ code: "custom", message: "must be 32 bytes as 64 hex characters or base64" });
      return z.NEVER;
    }),
});

export type Env = z.infer<typeof EnvSchema>;

/**
 * The operator's lifetime defaults and maxima as the core takes them (milliseconds). A default
 * above its maximum is a configuration error: no sandbox could be created with it.
 */
export function lifetimeConfig(env: Env) {
  const ms = (seconds: number | undefined) => (seconds === undefined ? null : seconds * 1000);
  const idleS =
    env.SANDBOX_IDLE_PAUSE_AFTER_S ??
    (env.IDLE_AUTO_PAUSE_MINUTES === undefined
      ? undefined
      : Math.max(1, Math.round(env.IDLE_AUTO_PAUSE_MINUTES * 60)));
  const defaults: [string, number | undefined, string, number][] = [
    [
      "SANDBOX_TIMEOUT_S",
      env.SANDBOX_TIMEOUT_S,
      "SANDBOX_MAX_TIMEOUT_S",
      env.SANDBOX_MAX_TIMEOUT_S,
    ],
    [
      "SANDBOX_IDLE_PAUSE_AFTER_S",
      idleS,
      "SANDBOX_MAX_IDLE_PAUSE_AFTER_S",
      env.SANDBOX_MAX_IDLE_PAUSE_AFTER_S,
    ],
    [
      "SANDBOX_DELETE_PAUSED_AFTER_S",
      env.SANDBOX_DELETE_PAUSED_AFTER_S,
      "SANDBOX_MAX_DELETE_PAUSED_AFTER_S",
      env.SANDBOX_MAX_DELETE_PAUSED_AFTER_S,
    ],
  ];
  for (const [name, value, maxName, max] of defaults) {
    if (value !== undefined && value > max) {
      throw new ConfigError(
        `invalid configuration: ${name} must be at most ${maxName} (got ${value} and ${max})`,
      );
    }
  }
  return {
    defaultTimeoutMs: ms(env.SANDBOX_TIMEOUT_S),
    defaultOnTimeout: env.SANDBOX_ON_TIMEOUT,
    idleAutoPauseMs: ms(idleS),
    defaultDeletePausedAfterMs: ms(env.SANDBOX_DELETE_PAUSED_AFTER_S),
    maxTimeoutMs: env.SANDBOX_MAX_TIMEOUT_S * 1000,
    maxIdlePauseAfterMs: env.SANDBOX_MAX_IDLE_PAUSE_AFTER_S * 1000,
    maxDeletePausedAfterMs: env.SANDBOX_MAX_DELETE_PAUSED_AFTER_S * 1000,
  };
}

/**
 * Reads and validates the environment once. A wrong value is a ConfigError naming the variable,
 * what it holds and what it must be, all in one line.
 */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join(".");
      const value = source[name];
      const shown =
        value === undefined || /KEY|SECRET|TOKEN|DATABASE_URL/.test(name)
          ? ""
          : ` (got ${JSON.stringify(value)})`;
      return `${name} ${issue.message}${shown}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  return parsed.data;
}
