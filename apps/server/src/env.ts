import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultMaxRunningSandboxes } from "@sandbox-server/core";
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
  IDLE_AUTO_PAUSE_MINUTES: z.coerce.number().positive().optional(),
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
  WEBHOOK_CONCURRENCY: optionalPositiveInt.default(32),
  WEBHOOK_CONCURRENCY_PER_USER: optionalPositiveInt.default(4),
  /** Webhooks one user may register (409 WEBHOOK_LIMIT_REACHED beyond). */
  MAX_WEBHOOKS_PER_USER: optionalPositiveInt.default(100),
  FOLLOWER_RECONNECT_BASE_MS: optionalPositiveInt.default(500),
  FOLLOWER_RECONNECT_MAX_MS: optionalPositiveInt.default(30_000),
  /** Followed events larger than this are stored as a placeholder that says so. */
  STORED_EVENT_MAX_BYTES: optionalPositiveInt.default(1024 * 1024),
  /** Process runtime: `bwrap` demands bubblewrap, `none` runs sandboxes unisolated. */
  PROCESS_SANDBOXING: z.enum(["auto", "bwrap", "none"]).default("auto"),
  ALLOW_UNISOLATED_MULTI_USER: flag,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag,
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
