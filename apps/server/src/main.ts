import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { startupBanner } from "./banner";
import { ConfigError, exitWithConfigError } from "./config-error";
import { prepareDataDir } from "./data-dir";
import { type Env, lifetimeConfig, loadEnv } from "./env";
import { selectRuntime } from "./runtime";
import { startServer } from "./server";
import { adoptSharedInstanceId } from "./shared-instance";

let env: Env;
let lifetime: ReturnType<typeof lifetimeConfig>;
try {
  env = loadEnv();
  lifetime = lifetimeConfig(env);
  if (env.LEASE_RENEW_MS >= env.LEASE_TTL_MS) {
    throw new ConfigError(
      `invalid configuration: LEASE_RENEW_MS must be less than LEASE_TTL_MS (got ${env.LEASE_RENEW_MS} and ${env.LEASE_TTL_MS})`,
    );
  }
} catch (error) {
  if (error instanceof ConfigError) exitWithConfigError(error);
  throw error;
}
const log = pino({
  level: env.LOG_LEVEL,
  redact: {
    paths: ["*.authorization", "*.apiKey", "*.sessionApiKey", "*.session_api_key", "*.secret"],
    censor: "[redacted]",
  },
});

// The bundle ships the migrations beside it (dist/drizzle); from source the db package finds its own.
const bundledMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "drizzle");
const bundledPgMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), "drizzle-pg");
// The bundle's ingest worker; from source (npm run dev) events are followed on the main thread.
const eventWorkerScript = new URL("./event-worker.js", import.meta.url);

async function main() {
  const dataDir = prepareDataDir(env.DATA_DIR);
  const notices: string[] = [];
  const starting = startServer({
    dataDir,
    // After the store opened: replicas on one database share their Docker instance id.
    runtime: async (store) => {
      if (env.DATABASE_URL) await adoptSharedInstanceId(store, dataDir, log);
      return selectRuntime(env, log, {
        operatorEgress: env.SANDBOX_EGRESS_ALLOW,
        notice: (line) => notices.push(line),
      });
    },
    log,
    port: env.PORT,
    host: env.HOST,
    adminApiKey: env.ADMIN_API_KEY,
    secretsKey: env.SECRETS_KEY,
    metricsToken: env.METRICS_TOKEN,
    databaseUrl: env.DATABASE_URL,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    defaultImage: env.SANDBOX_IMAGE,
    ...(existsSync(bundledMigrations) ? { migrationsFolder: bundledMigrations } : {}),
    ...(existsSync(bundledPgMigrations) ? { pgMigrationsFolder: bundledPgMigrations } : {}),
    ...(existsSync(fileURLToPath(eventWorkerScript)) ? { eventWorkerScript } : {}),
    previewBaseDomain: env.PREVIEW_BASE_DOMAIN,
    portUrlKeyGeneration: env.PORT_URL_KEY_GENERATION,
    config: {
      maxRunningSandboxes: env.MAX_RUNNING_SANDBOXES,
      allowUnisolatedMultiUser: env.ALLOW_UNISOLATED_MULTI_USER,
      webhookAllowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      operatorEgress: env.SANDBOX_EGRESS_ALLOW,
      sandboxStartTimeoutMs: env.SANDBOX_START_TIMEOUT_MS,
      conversationStartTimeoutMs: env.CONVERSATION_START_TIMEOUT_MS,
      agentRequestTimeoutMs: env.AGENT_REQUEST_TIMEOUT_MS,
      ...lifetime,
      warmPoolSize: env.WARM_POOL_SIZE,
      webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
      webhookMaxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      webhookBackoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS,
      webhookBackoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS,
      webhookConcurrency: env.WEBHOOK_CONCURRENCY,
      webhookConcurrencyPerUser: env.WEBHOOK_CONCURRENCY_PER_USER,
      maxWebhooksPerUser: env.MAX_WEBHOOKS_PER_USER,
      followerReconnectBaseMs: env.FOLLOWER_RECONNECT_BASE_MS,
      followerReconnectMaxMs: env.FOLLOWER_RECONNECT_MAX_MS,
      storedEventMaxBytes: env.STORED_EVENT_MAX_BYTES,
      leaseTtlMs: env.LEASE_TTL_MS,
      leaseRenewMs: env.LEASE_RENEW_MS,
    },
  });
  // Listening for signals before the server is up (and so before the banner says it is): a SIGTERM
  // sent as soon as the banner appears found Node's default handler still in place and killed the
  // process without a graceful shutdown. One that arrives while starting waits for the start.
  const shutdown = (signal: string) => {
    log.info({ signal }, "shutting down; sandboxes keep running");
    starting
      .then((running) => running.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  const running = await starting;
  process.stdout.write(
    startupBanner({
      url: running.url,
      runtime: running.runtime,
      dataDir,
      adminKeyFromEnv: env.ADMIN_API_KEY !== undefined,
      notices,
    }),
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) exitWithConfigError(error);
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL") {
    exitWithConfigError(
      new ConfigError(
        `cannot listen on ${env.HOST}:${env.PORT} (${code}); choose another PORT or HOST`,
      ),
    );
  }
  log.fatal({ err: error }, "failed to start");
  process.exit(1);
});
