import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** Sized for the host: one sandbox per ~512 MiB of memory, between 4 and 64. */
function defaultMaxSandboxes(): number {
  return Math.max(4, Math.min(64, Math.floor(os.totalmem() / (512 * 1024 * 1024))));
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** The agent-server bundle, found from the source tree (tests, tsx) and from dist (bundle). */
const defaultAgentServerEntry = path.resolve(here, "../../agent-server/dist/agent-server.js");

const optionalPositiveInt = z.coerce.number().int().positive();

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATA_DIR: z.string().min(1).default("./.data"),
  ADMIN_API_KEY: z.string().min(16, "ADMIN_API_KEY must be at least 16 characters").optional(),
  SANDBOX_RUNTIME: z.enum(["auto", "docker", "process"]).default("auto"),
  MAX_RUNNING_SANDBOXES: optionalPositiveInt.default(defaultMaxSandboxes()),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SANDBOX_START_TIMEOUT_MS: optionalPositiveInt.default(60_000),
  CONVERSATION_START_TIMEOUT_MS: optionalPositiveInt.default(60_000),
  AGENT_REQUEST_TIMEOUT_MS: optionalPositiveInt.default(30_000),
  IDLE_AUTO_PAUSE_MINUTES: z.coerce.number().positive().optional(),
  BODY_LIMIT_BYTES: optionalPositiveInt.default(1024 * 1024),
  AGENT_SERVER_ENTRY: z.string().min(1).default(defaultAgentServerEntry),
  SANDBOX_IMAGE: z.string().min(1).default("sandbox-server/agent-server:latest"),
  DOCKER_SOCKET: z.string().min(1).default("/var/run/docker.sock"),
  WEBHOOK_TIMEOUT_MS: optionalPositiveInt.default(10_000),
  WEBHOOK_MAX_ATTEMPTS: optionalPositiveInt.default(8),
  WEBHOOK_BACKOFF_BASE_MS: optionalPositiveInt.default(2_000),
  WEBHOOK_BACKOFF_MAX_MS: optionalPositiveInt.default(15 * 60_000),
  WEBHOOK_CONCURRENCY: optionalPositiveInt.default(8),
  FOLLOWER_RECONNECT_BASE_MS: optionalPositiveInt.default(500),
  FOLLOWER_RECONNECT_MAX_MS: optionalPositiveInt.default(30_000),
});

export type Env = z.infer<typeof EnvSchema>;

/** Reads and validates the environment once; exits with a clear message when it is wrong. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    process.stderr.write(`Invalid configuration:\n${lines.join("\n")}\n`);
    process.exit(2);
  }
  return parsed.data;
}
