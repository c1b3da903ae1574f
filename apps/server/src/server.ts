import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { bootstrapAdmin, type Core, type CoreConfig, createCore } from "@sandbox-server/core";
import type { Store } from "@sandbox-server/db";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import type { Logger } from "pino";
import { createApp } from "./http/app";
import { answerClientErrors } from "./http/client-errors";
import { servePortUrls } from "./http/port-proxy";
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts, httpServerOptions } from "./http/server-options";
import { createServerMetrics } from "./metrics/registry";
import { openStore } from "./open-store";
import { derivePortUrlKey } from "./port-url-key";
import { assertSoleProcessReplica } from "./single-replica";

export interface StartServerOptions {
  dataDir: string;
  /** The runtime, or a function that makes it once the store is open (it may read the store). */
  runtime: SandboxRuntime | ((store: Store) => Promise<SandboxRuntime>);
  log: Logger;
  port?: number;
  host?: string;
  adminApiKey?: string | undefined;
  config?: Partial<CoreConfig>;
  bodyLimitBytes?: number;
  /** Client timeouts of the HTTP server (defaults: DEFAULT_HTTP_TIMEOUTS). */
  httpTimeouts?: Partial<HttpTimeouts>;
  defaultImage?: string;
  migrationsFolder?: string;
  /** SECRETS_KEY (32 bytes); when absent, DATA_DIR/secrets-key (generated on the first start). */
  secretsKey?: Uint8Array | undefined;
  /** METRICS_TOKEN: a bearer token for GET /metrics besides admins' API keys. */
  metricsToken?: string | undefined;
  /** DATABASE_URL: metadata in PostgreSQL; absent, SQLite in DATA_DIR. */
  databaseUrl?: string | undefined;
  /** Folder of the PostgreSQL migrations (the bundle's copy); default: packages/db/drizzle-pg. */
  pgMigrationsFolder?: string;
  /**
   * The ingest worker's script (the bundle's dist/event-worker.js): events are followed and stored
   * on a thread of their own. Absent: on the main thread.
   */
  eventWorkerScript?: URL | undefined;
  /** PREVIEW_BASE_DOMAIN: port URLs are `https://p{port}-{id}-{token}.{domain}/`; absent, `*.localhost`. */
  previewBaseDomain?: string | undefined;
  /** PORT_URL_KEY_GENERATION: raising it invalidates every port URL (default 1). */
  portUrlKeyGeneration?: number;
  /** The core's clock (tests move it). */
  now?: () => number;
}

export interface RunningServer {
  url: string;
  core: Core;
  runtime: SandboxRuntime;
  server: Server;
  /** Path of the generated admin key file, when one was generated on this start. */
  adminKeyFile: string | null;
  /** Stops accepting, finishes in-flight requests, closes the db. Sandboxes keep running. */
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { log } = options;
  mkdirSync(options.dataDir, { recursive: true });
  const { store, location } = await openStore({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    pgMigrationsFolder: options.pgMigrationsFolder,
    secretsKey: options.secretsKey,
    migrationsFolder: options.migrationsFolder,
    log,
  });
  let runtime: SandboxRuntime;
  try {
    runtime =
      typeof options.runtime === "function" ? await options.runtime(store) : options.runtime;
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  const metrics = createServerMetrics();
  const { eventWorkerScript } = options;
  const core = createCore({
    store,
    runtime,
    log,
    metrics: metrics.core,
    portUrls: {
      key: derivePortUrlKey(location.secretsKey, options.portUrlKeyGeneration ?? 1),
      baseDomain: options.previewBaseDomain ?? null,
      localPort: 0,
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.defaultImage ? { defaultImage: options.defaultImage } : {}),
    ...(eventWorkerScript
      ? {
          eventWorker: ({ config }) =>
            new Worker(eventWorkerScript, { workerData: { store: location, config } }),
        }
      : {}),
  });
  metrics.attach(core);
  const { generatedKey } = await bootstrapAdmin(core.deps, options.adminApiKey);
  let adminKeyFile: string | null = null;
  if (generatedKey) {
    adminKeyFile = path.resolve(options.dataDir, "admin-api-key");
    writeFileSync(adminKeyFile, `${generatedKey}\n`, { mode: 0o600 });
    chmodSync(adminKeyFile, 0o600);
    log.info({ file: adminKeyFile }, `admin API key written to ${adminKeyFile}`);
  }
  let ready = false;
  const app = createApp({
    core,
    log,
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    isReady: () => ready,
    metrics,
    metricsToken: options.metricsToken,
    ...(options.httpTimeouts ? { timeouts: options.httpTimeouts } : {}),
  });
  await core.start();
  if (store.shared && runtime.kind === "process") {
    try {
      await assertSoleProcessReplica(core, store);
    } catch (error) {
      await core.stop().catch(() => undefined);
      await runtime.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      throw error;
    }
  }
  const server = createServer(httpServerOptions(options.httpTimeouts), app.listener);
  answerClientErrors(server);
  const ports = servePortUrls(server, core.deps, log, {
    headersTimeoutMs:
      options.httpTimeouts?.headersTimeoutMs ?? DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs,
    observe: metrics.observePortConnection,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  });
  ready = true;
  const address = server.address() as AddressInfo;
  core.deps.portUrls.localPort = address.port;
  // Never a webhook destination, whatever WEBHOOK_ALLOW_PRIVATE_NETWORKS says: ourselves.
  const denied = [
    ...core.deps.config.webhookDeniedTargets,
    { host: address.address, port: address.port },
  ];
  core.deps.config.webhookDeniedTargets = denied;
  const url = `http://${address.address}:${address.port}`;
  log.info(
    { url, runtime: runtime.kind, replica: core.replicaId },
    `sandbox server listening on ${url}`,
  );

  let closing: Promise<void> | null = null;
  return {
    url,
    core,
    runtime,
    server,
    adminKeyFile,
    close() {
      closing ??= (async () => {
        ready = false;
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          ports.close();
        });
        app.close();
        await core.stop();
        await runtime.close();
        await store.close();
      })();
      return closing;
    },
  };
}
