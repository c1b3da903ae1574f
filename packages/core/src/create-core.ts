import type { DbHandle } from "@sandbox-server/db";
import { createRepositories } from "@sandbox-server/db";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { AgentServerClient } from "./agent-client";
import { type CoreConfig, type CoreDeps, createEvents } from "./deps";
import type { Logger } from "./logger";
import { builtinSpecs } from "./sandbox-specs/builtin";
import { SandboxSupervisor } from "./sandboxes/supervisor";
import { KeyedLock } from "./shared/keyed-lock";

export const defaultConfig: CoreConfig = {
  sandboxStartTimeoutMs: 60_000,
  conversationStartTimeoutMs: 60_000,
  agentRequestTimeoutMs: 30_000,
  statusProbeTimeoutMs: 500,
  maxRunningSandboxes: 20,
  healthGraceMs: 10_000,
  supervisorIntervalMs: 1_000,
  idleAutoPauseMs: null,
  defaultSpecId: "default",
};

export interface CreateCoreOptions {
  db: DbHandle;
  runtime: SandboxRuntime;
  log: Logger;
  config?: Partial<CoreConfig>;
  /** Image of the built-in spec (docker runtime). */
  defaultImage?: string;
  now?: () => number;
}

export interface Core {
  deps: CoreDeps;
  supervisor: SandboxSupervisor;
  /** Seeds built-in specs and reconciles records with the runtime, then watches it. */
  start(): Promise<void>;
  /** Stops background work and closes connections; sandboxes keep running. */
  stop(): Promise<void>;
}

export function createCore(options: CreateCoreOptions): Core {
  const config = { ...defaultConfig, ...options.config };
  const deps: CoreDeps = {
    repos: createRepositories(options.db.db),
    runtime: options.runtime,
    agents: new AgentServerClient({ requestTimeoutMs: config.agentRequestTimeoutMs }),
    config,
    log: options.log,
    now: options.now ?? Date.now,
    locks: new KeyedLock(),
    events: createEvents(),
    activity: new Map(),
  };
  const supervisor = new SandboxSupervisor(deps);
  return {
    deps,
    supervisor,
    async start() {
      for (const spec of builtinSpecs(deps.now(), options.defaultImage))
        deps.repos.specs.upsert(spec);
      await supervisor.start();
    },
    async stop() {
      supervisor.stop();
      await deps.agents.close();
    },
  };
}
