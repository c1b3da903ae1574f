import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createSecretBox,
  createSqliteStore,
  type SandboxSpecRow,
  SECRET_KEY_BYTES,
  type Store,
} from "@sandbox-server/db";
import {
  findSandboxProcesses,
  ProcessRuntime,
  type ProcessSandboxing,
} from "@sandbox-server/runtime";
import { createContextInner } from "../src/context";
import { type Core, createCore } from "../src/create-core";
import type { CoreConfig, CoreDeps } from "../src/deps";
import { silentLogger } from "../src/logger";
import { appRouter } from "../src/router";
import { bootstrapAdmin } from "../src/users/bootstrap-admin";
import { AGENT_SERVER_BUNDLE } from "./paths";

export type Caller = ReturnType<typeof appRouter.createCaller>;

/** The admin key every test core is bootstrapped with (as `ADMIN_API_KEY` would). */
export const ADMIN_KEY = "ssk_core_test_admin_key_0123456789";

export interface TestUser {
  id: string;
  name: string;
  apiKey: string;
  /** A caller authenticated with `apiKey` (its context is resolved once, when created). */
  caller: Caller;
}

export interface TestCoreOptions {
  config?: Partial<CoreConfig>;
  /** The process runtime's sandboxing; `auto` (bubblewrap when it works here) by default. */
  sandboxing?: ProcessSandboxing;
  /** `file` (default: a temporary file, both connections as in production) or `:memory:`. */
  database?: "file" | ":memory:";
  /** The core's clock (`deps.now`); `Date.now` by default. */
  now?: () => number;
}

export interface TestCore {
  core: Core;
  deps: CoreDeps;
  runtime: ProcessRuntime;
  store: Store;
  dataDir: string;
  /** Parent of the process runtime's sandbox directories. */
  sandboxesDir: string;
  admin: Caller;
  /**
   * `appRouter.createCaller(await createContextInner({ deps, apiKey }))`: one request's context,
   * so a caller made before a key is revoked or its user disabled still acts as that user.
   * `sessionApiKey` is what an `X-Session-API-Key` header would carry.
   */
  callerFor(apiKey: string | null, headers?: { sessionApiKey?: string }): Promise<Caller>;
  /** A user made by the admin through `users.create`, with the key it answered. */
  createUser(name: string, options?: { isAdmin?: boolean }): Promise<TestUser>;
  /** Writes a sandbox spec straight into the store (no procedure creates specs). */
  addSpec(spec: Partial<SandboxSpecRow> & Pick<SandboxSpecRow, "id">): Promise<SandboxSpecRow>;
  /** Deletes every sandbox, checks no process of one is left, stops and removes everything. */
  close(): Promise<void>;
}

/** Settings that keep tests quick without changing what is tested. */
const TEST_CONFIG: Partial<CoreConfig> = {
  sandboxStartTimeoutMs: 30_000,
  conversationStartTimeoutMs: 30_000,
  agentRequestTimeoutMs: 5_000,
  healthGraceMs: 2_000,
  supervisorIntervalMs: 250,
  webhookBackoffBaseMs: 100,
  webhookBackoffMaxMs: 1_000,
  // Where bubblewrap does not work the runtime is unisolated; the tests still need two users.
  allowUnisolatedMultiUser: true,
};

/**
 * A started core over a real SQLite store (committed migrations) and a real process runtime that
 * runs the built agent-server bundle (under bubblewrap when it works here).
 */
export async function createTestCore(options: TestCoreOptions = {}): Promise<TestCore> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "core-test-"));
  const sandboxesDir = path.join(dataDir, "sandboxes");
  const store = createSqliteStore(
    options.database === ":memory:" ? ":memory:" : path.join(dataDir, "sandbox-server.db"),
    { secretBox: createSecretBox(randomBytes(SECRET_KEY_BYTES)) },
  );
  const runtime = new ProcessRuntime({
    rootDir: sandboxesDir,
    agentServerEntry: AGENT_SERVER_BUNDLE,
    sandboxing: options.sandboxing ?? "auto",
    stopGraceMs: 1_000,
  });
  const core = createCore({
    store,
    runtime,
    log: silentLogger,
    config: { ...TEST_CONFIG, ...options.config },
    ...(options.now ? { now: options.now } : {}),
  });
  const { deps } = core;
  // Every sandbox this core ever moved, so close() can check none of them left a process behind.
  const seen = new Set<string>();
  deps.events.on("sandbox.status_changed", ({ sandbox }) => seen.add(sandbox.id));
  await bootstrapAdmin(deps, ADMIN_KEY);
  await core.start();

  const callerFor = async (apiKey: string | null, headers: { sessionApiKey?: string } = {}) =>
    appRouter.createCaller(await createContextInner({ deps, apiKey, ...headers }));
  const admin = await callerFor(ADMIN_KEY);
  let closed = false;

  return {
    core,
    deps,
    runtime,
    store,
    dataDir,
    sandboxesDir,
    admin,
    callerFor,
    async createUser(name, userOptions = {}) {
      const created = await admin.users.create({ name, is_admin: userOptions.isAdmin ?? false });
      return {
        id: created.id,
        name: created.name,
        apiKey: created.api_key,
        caller: await callerFor(created.api_key),
      };
    },
    async addSpec(spec) {
      const row: SandboxSpecRow = {
        name: spec.id,
        description: `test spec ${spec.id}`,
        runtime: "any",
        image: null,
        command: null,
        workingDir: null,
        initialEnv: {},
        cpu: null,
        memoryMb: null,
        pids: null,
        network: null,
        createdAt: deps.now(),
        lifetime: null,
        ...spec,
      };
      await store.specs.upsert(row);
      return row;
    },
    async close() {
      if (closed) return;
      closed = true;
      await core.stop();
      for (const row of await store.sandboxes.listAll()) seen.add(row.id);
      for (const sandbox of await runtime.list()) seen.add(sandbox.sandboxId);
      for (const entry of await readdir(sandboxesDir).catch(() => [])) seen.add(entry);
      for (const id of seen) await runtime.delete(id);
      const leftovers: number[] = [];
      for (const id of seen) {
        for (const proc of await findSandboxProcesses(path.join(sandboxesDir, id))) {
          leftovers.push(proc.pid);
        }
      }
      await runtime.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
      if (leftovers.length > 0) {
        throw new Error(`sandbox processes left behind after delete: ${leftovers.join(", ")}`);
      }
    },
  };
}

/**
 * Kills every process of one of the test core's sandboxes from outside (SIGKILL by pid), as a
 * crash or the OOM killer would. Only processes that carry that sandbox's directory as marker,
 * i.e. processes this test started through the runtime.
 */
export async function killSandboxFromOutside(t: TestCore, sandboxId: string): Promise<number> {
  const processes = await findSandboxProcesses(path.join(t.sandboxesDir, sandboxId));
  for (const { pid } of processes) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  return processes.length;
}
