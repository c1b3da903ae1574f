import { randomBytes } from "node:crypto";
import { totalmem } from "node:os";
import type { Worker } from "node:worker_threads";
import type { Store } from "@sandbox-server/db";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { AgentServerClient } from "./agent-client";
import { createApiKeyCache } from "./auth/api-keys";
import { listenForForgottenKeys } from "./auth/key-notices";
import { reconcileStartTasks } from "./conversations/service/reconcile-start-tasks";
import { createEvents } from "./core-events";
import type { CoreConfig, CoreDeps } from "./deps";
import { EventFollower } from "./events/ingest/event-follower";
import { announceFollowChanges } from "./events/ingest/follow-notices";
import { ingestConfigOf } from "./events/ingest/ingest-deps";
import type { IngestWorkerData } from "./events/ingest/protocol";
import { WorkerFollowers } from "./events/ingest/worker-followers";
import type { Logger } from "./logger";
import type { CoreMetrics } from "./metrics";
import { DutyLease } from "./replicas/duty-lease";
import { newReplicaId } from "./replicas/replica-id";
import { SandboxLocks } from "./replicas/sandbox-locks";
import { builtinSpecs } from "./sandbox-specs/builtin";
import { defaultMaxRunningSandboxes } from "./sandboxes/default-limit";
import { watchEgressDenials } from "./sandboxes/egress-denials/egress-denials";
import { LifetimeSweeper } from "./sandboxes/lifetime/sweep";
import { SandboxSupervisor } from "./sandboxes/supervisor/supervisor";
import { ensurePoolOwner } from "./sandboxes/warm-pool/pool-state";
import { SandboxActivity } from "./state/activity";
import { ForwardGate } from "./state/forward-gate";
import type { PortUrlSigner } from "./state/port-urls";
import { SendMessageTargets } from "./state/send-message-targets";
import { WarmPoolState } from "./state/warm-pool-state";
import { DeliveryWorker } from "./webhooks/delivery/delivery-worker";
import { watchSandboxLifecycle } from "./webhooks/lifecycle";

const DAY_MS = 24 * 60 * 60 * 1000;

export const defaultConfig: CoreConfig = {
  sandboxStartTimeoutMs: 60_000,
  conversationStartTimeoutMs: 60_000,
  agentRequestTimeoutMs: 30_000,
  statusProbeTimeoutMs: 500,
  maxRunningSandboxes: defaultMaxRunningSandboxes(totalmem()),
  allowUnisolatedMultiUser: false,
  healthGraceMs: 10_000,
  supervisorIntervalMs: 1_000,
  supervisorSweepMs: 120_000,
  idleAutoPauseMs: null,
  defaultTimeoutMs: null,
  defaultOnTimeout: "pause",
  defaultDeletePausedAfterMs: null,
  maxTimeoutMs: 30 * DAY_MS,
  maxIdlePauseAfterMs: 30 * DAY_MS,
  maxDeletePausedAfterMs: 365 * DAY_MS,
  lifetimeSweepIntervalMs: 1_000,
  warmPoolSize: 0,
  defaultSpecId: "default",
  webhookTimeoutMs: 10_000,
  webhookMaxAttempts: 8,
  webhookBackoffBaseMs: 2_000,
  webhookBackoffMaxMs: 15 * 60_000,
  webhookConcurrency: 64,
  webhookConcurrencyPerUser: 16,
  webhookAllowPrivateNetworks: false,
  maxWebhooksPerUser: 100,
  webhookDeniedTargets: [],
  followerReconnectBaseMs: 500,
  followerReconnectMaxMs: 30_000,
  storedEventMaxBytes: 1024 * 1024,
  leaseTtlMs: 15_000,
  leaseRenewMs: 5_000,
  followerScanIntervalMs: 300_000,
  operatorEgress: { allow: [] },
};

export interface CreateCoreOptions {
  /** The records; the caller opens it and closes it after `stop()`. */
  store: Store;
  runtime: SandboxRuntime;
  log: Logger;
  config?: Partial<CoreConfig>;
  /** Image of the built-in spec (docker runtime). */
  defaultImage?: string;
  now?: () => number;
  /** Receives counters and observations (e.g. the server's Prometheus registry). */
  metrics?: CoreMetrics;
  /**
   * Signs port URLs and says where they point. Absent: a random key (URLs of this process only)
   * and the local form on port 0 until the caller sets `deps.portUrls.localPort`.
   */
  portUrls?: PortUrlSigner;
  /** This process's id among replicas; default a random `rpl_…`. */
  replicaId?: string;
  /**
   * Starts the ingest worker: a thread that runs `runIngestWorker` over a store connection of its
   * own, given the core's part of its `workerData`. Events are then followed and stored there, off
   * the loop that serves requests. Absent: on the main thread.
   */
  eventWorker?: (data: Pick<IngestWorkerData, "config">) => Worker;
}

export interface Core {
  deps: CoreDeps;
  supervisor: SandboxSupervisor;
  /** Applies the sandboxes' lifetime rules (timeout, idle pause, retention while PAUSED). */
  lifetime: LifetimeSweeper;
  /** Follows the events of every RUNNING sandbox's conversations. */
  follower: EventFollower;
  /** Sends the webhook outbox. */
  webhookWorker: DeliveryWorker;
  /** This process's id among the replicas of a shared store (lease holder, webhook claims). */
  replicaId: string;
  /** Whether this core runs the background duties right now (always, over an unshared store). */
  leading(): boolean;
  /**
   * Seeds built-in specs, starts following events and sending webhooks, and reconciles records
   * with the runtime, then watches it.
   */
  start(): Promise<void>;
  /** Stops background work and closes connections; sandboxes keep running. */
  stop(): Promise<void>;
}

export function createCore(options: CreateCoreOptions): Core {
  const config = { ...defaultConfig, ...options.config };
  const { store } = options;
  const replicaId = options.replicaId ?? newReplicaId();
  const now = options.now ?? Date.now;
  const shared = store.shared;
  const base: Omit<CoreDeps, "sendTargets"> = {
    repos: options.store,
    runtime: options.runtime,
    agents: new AgentServerClient({ requestTimeoutMs: config.agentRequestTimeoutMs }),
    config,
    log: options.log,
    now,
    locks: new SandboxLocks(
      shared
        ? {
            shared: {
              leases: store.leases,
              holder: replicaId,
              ttlMs: config.leaseTtlMs,
              renewMs: config.leaseRenewMs,
            },
          }
        : {},
    ),
    replicaId,
    sharedStore: shared,
    ...(store.notices ? { notices: store.notices } : {}),
    events: createEvents(),
    forwards: new ForwardGate(),
    activity: new SandboxActivity(),
    portUrls: options.portUrls ?? { key: randomBytes(32), baseDomain: null, localPort: 0 },
    warmPool: new WarmPoolState(),
    creates: new Map(),
    apiKeyCache: createApiKeyCache(now),
    transaction: (work) => options.store.transaction(work),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  };
  // One object: the targets read `now` and `sharedStore` from it as they are when asked.
  const deps: CoreDeps = Object.assign(base, { sendTargets: new SendMessageTargets(base) });
  const supervisor = new SandboxSupervisor(deps, (startedAt) =>
    reconcileStartTasks(deps, startedAt),
  );
  const lifetime = new LifetimeSweeper(deps);
  const { eventWorker } = options;
  const follower = new EventFollower(
    deps,
    eventWorker
      ? () => new WorkerFollowers(deps, () => eventWorker({ config: ingestConfigOf(config) }))
      : undefined,
  );
  const webhookWorker = new DeliveryWorker(deps);
  let unwatchLifecycle: (() => void) | null = null;
  let unwatchDenials: (() => Promise<void>) | null = null;
  let stopKeyNotices: (() => Promise<void>) | null = null;
  let stopFollowNotices: (() => void) | null = null;
  // The background duties: exactly one replica runs them (the duties lease holder).
  let leading = false;
  const duties = {
    async start() {
      leading = true;
      webhookWorker.start();
      await follower.start();
      await supervisor.start();
      lifetime.start();
    },
    async stop() {
      leading = false;
      await lifetime.stop();
      supervisor.stop();
      // Events already received are stored, not left for the next holder to fetch again.
      await follower.stop();
      await webhookWorker.stop();
    },
  };
  const lease = shared
    ? new DutyLease({
        leases: store.leases,
        holder: replicaId,
        ttlMs: config.leaseTtlMs,
        renewMs: config.leaseRenewMs,
        log: options.log,
        gain: duties.start,
        lose: duties.stop,
      })
    : null;
  return {
    deps,
    supervisor,
    lifetime,
    follower,
    webhookWorker,
    replicaId,
    leading: () => leading,
    async start() {
      for (const spec of builtinSpecs(deps.now(), options.defaultImage)) {
        await deps.repos.specs.upsert(spec);
      }
      // Before reconciling, so that the status moves it makes reach webhooks and followers too.
      unwatchLifecycle = watchSandboxLifecycle(deps);
      // On every replica: each one's runtime reports what its own enforcers refused.
      unwatchDenials = watchEgressDenials(deps);
      stopKeyNotices = await listenForForgottenKeys(deps);
      // On every replica: the duties' holder follows what the others move.
      if (shared && deps.notices) {
        stopFollowNotices = announceFollowChanges(deps.events, {
          notices: deps.notices,
          replicaId,
          log: options.log,
        });
      }
      if (config.warmPoolSize > 0) await ensurePoolOwner(deps);
      if (lease) {
        options.log.info(
          { replica: replicaId },
          "shared store: background duties run under a lease",
        );
        await lease.start();
      } else {
        await duties.start();
      }
    },
    async stop() {
      if (lease) await lease.stop();
      else await duties.stop();
      unwatchLifecycle?.();
      await unwatchDenials?.();
      await stopKeyNotices?.();
      stopFollowNotices?.();
      await deps.agents.close();
    },
  };
}
