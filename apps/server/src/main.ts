import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { loadEnv } from "./env";
import { selectRuntime } from "./runtime";
import { startServer } from "./server";

const env = loadEnv();
const log = pino({
  level: env.LOG_LEVEL,
  redact: {
    paths: ["*.authorization", "*.apiKey", "*.sessionApiKey", "*.session_api_key", "*.secret"],
    censor: "[redacted]",
  },
});

// The bundle ships the migrations beside it (dist/drizzle); from source the db package finds its own.
const bundledMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "drizzle");

async function main() {
  const runtime = await selectRuntime(env, log);
  const running = await startServer({
    dataDir: path.resolve(env.DATA_DIR),
    runtime,
    log,
    port: env.PORT,
    host: env.HOST,
    adminApiKey: env.ADMIN_API_KEY,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    defaultImage: env.SANDBOX_IMAGE,
    ...(existsSync(bundledMigrations) ? { migrationsFolder: bundledMigrations } : {}),
    config: {
      maxRunningSandboxes: env.MAX_RUNNING_SANDBOXES,
      sandboxStartTimeoutMs: env.SANDBOX_START_TIMEOUT_MS,
      conversationStartTimeoutMs: env.CONVERSATION_START_TIMEOUT_MS,
      agentRequestTimeoutMs: env.AGENT_REQUEST_TIMEOUT_MS,
      idleAutoPauseMs: env.IDLE_AUTO_PAUSE_MINUTES ? env.IDLE_AUTO_PAUSE_MINUTES * 60_000 : null,
      webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
      webhookMaxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      webhookBackoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS,
      webhookBackoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS,
      webhookConcurrency: env.WEBHOOK_CONCURRENCY,
      followerReconnectBaseMs: env.FOLLOWER_RECONNECT_BASE_MS,
      followerReconnectMaxMs: env.FOLLOWER_RECONNECT_MAX_MS,
    },
  });
  if (running.adminKeyFile) {
    process.stdout.write(`Admin API key: ${running.adminKeyFile}\n`);
  }
  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down; sandboxes keep running");
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  log.fatal({ err: error }, "failed to start");
  process.exit(1);
});
