import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { CoreConfig } from "@sandbox-server/core";
import type { OperatorEgressPolicy } from "@sandbox-server/egress";
import {
  containerNameFor,
  DEFAULT_SANDBOX_IMAGE,
  DockerRuntime,
  findSandboxProcesses,
  ProcessRuntime,
  type SandboxRuntime,
} from "@sandbox-server/runtime";
import pg from "pg";
import pino from "pino";
import { inject } from "vitest";
import { type RunningServer, startServer } from "../src/server";
import { type ApiResponse, apiCall, type RequestOptions } from "./api-call";
import { testEventWorkerScript } from "./event-worker-bundle";

export const ADMIN_KEY = "ssk_test_admin_key_0123456789";
export const agentServerEntry = fileURLToPath(
  new URL("../../agent-server/dist/agent-server.js", import.meta.url),
);

export type RuntimeKind = "process" | "docker";

export interface TestServer {
  url: string;
  server: RunningServer;
  runtime: SandboxRuntime;
  dataDir: string;
  /** Everything the server logged, for secret-leak checks. */
  logs: () => string;
  api: (method: string, route: string, options?: RequestOptions) => Promise<ApiResponse>;
  trpc: (
    kind: "query" | "mutation",
    procedure: string,
    input: unknown,
    key?: string | null,
  ) => Promise<ApiResponse>;
  createUser: (name: string) => Promise<string>;
  waitForStatus: (
    id: string,
    status: string,
    key?: string,
    timeoutMs?: number,
  ) => Promise<ApiResponse>;
  /** Runs a query on the store's database over a connection of its own (what is really stored). */
  rawQuery: (sql: string) => Promise<Record<string, unknown>[]>;
  /** Restarts the control plane over the same data directory (sandboxes keep running). */
  restart: (config?: Partial<CoreConfig>) => Promise<void>;
  close: () => Promise<void>;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Given by packages/db/test/postgres-setup.ts (the postgres project's globalSetup). */
    testDatabaseUrl: string;
  }
}

/**
 * The store the current vitest project runs the suite on (see vitest.config.ts): the SQLite file
 * in the data directory, or a fresh database on the PostgreSQL the `postgres` project provides.
 */
export function testStore(): "sqlite" | "postgres" {
  return process.env.TEST_STORE === "postgres" ? "postgres" : "sqlite";
}

/** A new, empty database beside the provided one, and a way to drop it. */
async function freshPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = inject("testDatabaseUrl");
  if (!base) throw new Error("the postgres project runs without a PostgreSQL (TEST_DATABASE_URL)");
  const name = `server_test_${randomBytes(6).toString("hex")}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** The runtime the current vitest project runs the suite on (see vitest.config.ts). */
export function testRuntime(): RuntimeKind {
  return process.env.TEST_RUNTIME === "docker" ? "docker" : "process";
}

export async function createRuntime(
  kind: RuntimeKind,
  dataDir: string,
  sandboxing: "auto" | "none" = "auto",
  operatorEgress: OperatorEgressPolicy = { allow: [] },
): Promise<SandboxRuntime> {
  if (kind === "docker") {
    return new DockerRuntime({
      image: process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE,
      // Its own instance per test server: concurrent servers on one daemon never touch each other.
      instance: `test-${path.basename(dataDir)}`,
      egress: { operator: operatorEgress },
    });
  }
  return new ProcessRuntime({
    rootDir: path.join(dataDir, "sandboxes"),
    agentServerEntry,
    sandboxing,
    egress: { operator: operatorEgress },
  });
}

export async function startTestServer(
  options: {
    config?: Partial<CoreConfig>;
    runtime?: RuntimeKind;
    /** Process runtime only: `none` runs sandboxes unisolated (isolation `none`). */
    sandboxing?: "auto" | "none";
    /**
     * The operator's egress exceptions (SANDBOX_EGRESS_ALLOW), for core and the process runtime:
     * e.g. a fake LLM on the host's loopback that sandboxes must reach.
     */
    operatorEgress?: OperatorEgressPolicy;
    /** METRICS_TOKEN. */
    metricsToken?: string;
    /**
     * The ingest worker's script: by default the bundle of the current sources (as the server's
     * bundle runs it); `null` follows events on the main thread.
     */
    eventWorkerScript?: URL | null;
    /** The core's clock. */
    now?: () => number;
  } = {},
): Promise<TestServer> {
  const kind = options.runtime ?? testRuntime();
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-server-test-"));
  let captured = "";
  const sink = new Writable({
    write(chunk, _enc, done) {
      captured += chunk.toString();
      done();
    },
  });
  const log = pino({ level: "debug" }, sink);
  const config: Partial<CoreConfig> = {
    sandboxStartTimeoutMs: 30_000,
    conversationStartTimeoutMs: 30_000,
    agentRequestTimeoutMs: 2_000,
    healthGraceMs: 3_000,
    supervisorIntervalMs: 300,
    ...(options.operatorEgress ? { operatorEgress: options.operatorEgress } : {}),
    ...options.config,
  };
  let runtime = await createRuntime(kind, dataDir, options.sandboxing, options.operatorEgress);
  const database = testStore() === "postgres" ? await freshPostgresDatabase() : null;
  const eventWorkerScript =
    options.eventWorkerScript === undefined
      ? await testEventWorkerScript()
      : (options.eventWorkerScript ?? undefined);
  const boot = (overrides: Partial<CoreConfig> = {}) =>
    startServer({
      eventWorkerScript,
      dataDir,
      databaseUrl: database?.url,
      runtime,
      log,
      adminApiKey: ADMIN_KEY,
      config: { ...config, ...overrides },
      metricsToken: options.metricsToken,
      ...(options.now ? { now: options.now } : {}),
    });
  let server = await boot();

  const t: TestServer = {
    get url() {
      return server.url;
    },
    get server() {
      return server;
    },
    get runtime() {
      return runtime;
    },
    dataDir,
    logs: () => captured,
    api(method, route, opts = {}) {
      const key = opts.key === undefined ? ADMIN_KEY : opts.key;
      return apiCall(server.url, method, route, { ...opts, key });
    },
    async trpc(kind, procedure, input, key = ADMIN_KEY) {
      const headers: Record<string, string> = {};
      if (key) headers.authorization = `Bearer ${key}`;
      const res =
        kind === "query"
          ? await fetch(
              `${server.url}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
              { headers },
            )
          : await fetch(`${server.url}/trpc/${procedure}`, {
              method: "POST",
              headers: { ...headers, "content-type": "application/json" },
              body: JSON.stringify(input),
            });
      const json = (await res.json()) as { result?: { data: unknown }; error?: unknown };
      return { status: res.status, body: json.error ?? json.result?.data };
    },
    async createUser(name) {
      const res = await t.api("POST", "/api/v1/users", { body: { name } });
      if (res.status !== 201) throw new Error(`user create failed: ${res.status}`);
      return res.body.api_key as string;
    },
    async waitForStatus(id, status, key = ADMIN_KEY, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let last: ApiResponse | undefined;
      while (Date.now() < deadline) {
        last = await t.api("GET", `/api/v1/sandboxes/${id}`, { key });
        if (last.body?.status === status) return last;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`sandbox ${id} did not reach ${status}; last: ${JSON.stringify(last?.body)}`);
    },
    async rawQuery(sql) {
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return (await client.query(sql)).rows;
        } finally {
          await client.end();
        }
      }
      const { default: Database } = await import("better-sqlite3");
      const raw = new Database(path.join(dataDir, "sandbox-server.db"), { readonly: true });
      try {
        return raw.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        raw.close();
      }
    },
    async restart(overrides) {
      await server.close();
      runtime = await createRuntime(kind, dataDir, options.sandboxing, options.operatorEgress);
      server = await boot(overrides);
    },
    async close() {
      // Through the server's own runtime first: its per-sandbox lock orders each delete after a
      // start still under way.
      for (const sandbox of await runtime.list()) await runtime.delete(sandbox.sandboxId);
      await server.close();
      // Then once more with the server closed: a create that was still in flight when the first
      // sweep listed may have added a sandbox since (CI found a container left behind).
      const sweeper = await createRuntime(kind, dataDir, options.sandboxing);
      for (const sandbox of await sweeper.list()) await sweeper.delete(sandbox.sandboxId);
      await sweeper.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  return t;
}

/**
 * Kills a sandbox from outside the control plane (SIGKILL of every process of it / docker kill).
 * Under bubblewrap the recorded pid is bwrap's own, whose death alone would leave the agent
 * server running inside its pid namespace: every process of the sandbox goes.
 */
export async function killAgentServer(t: TestServer, sandboxId: string): Promise<void> {
  if (t.runtime.kind === "docker") {
    execFileSync("docker", ["kill", containerNameFor(sandboxId)], { stdio: "ignore" });
    return;
  }
  const processes = await findSandboxProcesses(path.join(t.dataDir, "sandboxes", sandboxId));
  for (const { pid } of processes) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** Writes a spec that runs `command` (a process-runtime spec) straight into the server's store. */
export async function addCommandSpec(t: TestServer, id: string, command: string[]): Promise<void> {
  await t.server.core.deps.repos.specs.upsert({
    id,
    name: id,
    description: "",
    runtime: "any",
    image: null,
    command,
    workingDir: null,
    initialEnv: {},
    cpu: null,
    memoryMb: null,
    pids: null,
    network: null,
    createdAt: Date.now(),
  });
}
