import type { EventEmitter } from "node:events";
import type { Repositories, StoreNotices, User } from "@sandbox-server/db";
import type { OperatorEgressPolicy } from "@sandbox-server/egress";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import type { AgentServerClient } from "./agent-client";
import type { CoreEventMap } from "./core-events";
import type { Logger } from "./logger";
import type { CoreMetrics } from "./metrics";
import type { SandboxLocks } from "./replicas/sandbox-locks";
import type { RememberedReads } from "./shared/remembered-reads";
import type { SandboxActivity } from "./state/activity";
import type { ForwardGate } from "./state/forward-gate";
import type { InFlightCreates } from "./state/in-flight";
import type { PortUrlSigner } from "./state/port-urls";
import type { SendMessageTargets } from "./state/send-message-targets";
import type { WarmPoolState } from "./state/warm-pool-state";

export interface CoreConfig {
  /** How long a sandbox may take from STARTING to RUNNING before it is ERROR. */
  sandboxStartTimeoutMs: number;
  /** How long a conversation create waits for its sandbox and agent server. */
  conversationStartTimeoutMs: number;
  /** Upper bound of one forwarded call to an agent server. */
  agentRequestTimeoutMs: number;
  /** How long a read waits for a live execution_status before answering null. */
  statusProbeTimeoutMs: number;
  maxRunningSandboxes: number;
  /**
   * Whether more than one user may exist while the runtime does not isolate sandboxes
   * (isolation `none`): without isolation the server is for one person and their own agents.
   */
  allowUnisolatedMultiUser: boolean;
  /** How long a RUNNING sandbox may fail health checks before it is ERROR. */
  healthGraceMs: number;
  /** How often the supervisor runs: the warm pool, sandboxes whose last check failed. */
  supervisorIntervalMs: number;
  /**
   * How often every RUNNING and PAUSED sandbox is inspected (its /health probed). Exits arrive as
   * the runtime's `exit` events in between, so this sweep only finds what no event reports (a hung
   * agent server, a change the runtime cannot see).
   */
  supervisorSweepMs: number;
  /**
   * Lifetime defaults of new sandboxes (a create's fields, then its spec's, win): the operator's
   * `idle_pause_after_s` (IDLE_AUTO_PAUSE_MINUTES), `timeout_s` and `on_timeout`,
   * `delete_paused_after_s`. Null: that rule is off unless a create or spec sets it.
   */
  idleAutoPauseMs: number | null;
  defaultTimeoutMs: number | null;
  defaultOnTimeout: "pause" | "delete";
  defaultDeletePausedAfterMs: number | null;
  /** The most a create (or spec) may set for each duration; more is 422. */
  maxTimeoutMs: number;
  maxIdlePauseAfterMs: number;
  maxDeletePausedAfterMs: number;
  /** How often the duties' holder looks for sandboxes whose lifetime rule is due. */
  lifetimeSweepIntervalMs: number;
  /**
   * Pre-started RUNNING sandboxes of the default spec that creates claim (0: none). They count
   * against `maxRunningSandboxes` but never take its last slot, and make room at the limit.
   */
  warmPoolSize: number;
  defaultSpecId: string;
  /** Upper bound of one webhook POST (connect, headers and body). */
  webhookTimeoutMs: number;
  /** Attempts per delivery before it is `failed`. */
  webhookMaxAttempts: number;
  /** Retry n waits about base * 2^(n-1) (with jitter), at most `webhookBackoffMaxMs`. */
  webhookBackoffBaseMs: number;
  webhookBackoffMaxMs: number;
  /** Webhook POSTs in flight at once, over all receivers. */
  webhookConcurrency: number;
  /** Webhook POSTs in flight at once for one user: one user's slow receivers never take every slot. */
  webhookConcurrencyPerUser: number;
  /** Let webhooks reach loopback, private and CGNAT addresses (local development only). */
  webhookAllowPrivateNetworks: boolean;
  /** Webhooks one user may register; beyond it 409 `WEBHOOK_LIMIT_REACHED`. */
  maxWebhooksPerUser: number;
  /** Never a webhook destination, whatever else allows: the control plane's own listening address. */
  webhookDeniedTargets: WebhookTarget[];
  /** Resolves a webhook's host name to addresses; the system resolver when absent (tests inject one). */
  webhookResolveHost?: (hostname: string) => Promise<string[]>;
  /** Reconnect n of an event follower waits about base * 2^(n-1) (with jitter), at most max. */
  followerReconnectBaseMs: number;
  followerReconnectMaxMs: number;
  /**
   * A followed event whose JSON is larger is stored (and delivered to webhooks) as a placeholder
   * that says so; the whole event stays on the agent server.
   */
  storedEventMaxBytes: number;
  /**
   * Over a shared store (PostgreSQL, several replicas): how long a lease (the background duties,
   * a sandbox's lifecycle lock) lasts without renewal, and how often its holder renews it. A
   * replica that dies hands its duties over within `leaseTtlMs` + `leaseRenewMs`.
   */
  leaseTtlMs: number;
  leaseRenewMs: number;
  /**
   * Over a shared store, how often the duties' holder scans for RUNNING sandboxes and
   * conversations other replicas created or moved, to follow their events. A safety net: the
   * replicas name what they move in store notices, and a listener's gap triggers a scan at once.
   */
  followerScanIntervalMs: number;
  /**
   * The non-public destinations sandboxes may reach (`SANDBOX_EGRESS_ALLOW`): an `allow_out`
   * entry outside them is refused at create and PATCH.
   */
  operatorEgress: OperatorEgressPolicy;
}

export interface WebhookTarget {
  host: string;
  port: number;
}

export interface CoreDeps {
  /** The records (the store port); each call outside `transaction` stands alone. */
  repos: Repositories;
  runtime: SandboxRuntime;
  agents: AgentServerClient;
  config: CoreConfig;
  log: Logger;
  now: () => number;
  /** Per-sandbox lifecycle lock; across replicas too over a shared store. */
  locks: SandboxLocks;
  /** This process's random id: the holder of its leases and webhook claims. */
  replicaId: string;
  /** Whether other replicas may use the store at once (`Store.shared`). */
  sharedStore: boolean;
  /**
   * Notices between replicas (`Store.notices`): revoked keys are dropped everywhere at once; the
   * duties' holder hears of sandboxes the others moved.
   */
  notices?: StoreNotices;
  events: EventEmitter<CoreEventMap>;
  /** Orders send-message forwards with pause/delete per sandbox (memory only, see ForwardGate). */
  forwards: ForwardGate;
  /**
   * Last activity of each sandbox: a message forwarded, an event of its agent, a port URL opened
   * (memory only: the hot path writes no rows).
   */
  activity: SandboxActivity;
  /** Signs port URLs (`GET /sandboxes/{id}/ports/{port}`, `exposed_urls`) and checks their tokens. */
  portUrls: PortUrlSigner;
  /** The warm pool's memory-only bookkeeping (members taken, the refill under way). */
  warmPool: WarmPoolState;
  /** Send-message's remembered conversation and sandbox rows. */
  sendTargets: SendMessageTargets;
  /** Idempotent creates running in this process, by record id. */
  creates: InFlightCreates;
  /** Recently verified API keys (by hash) → their user, so a request costs no key lookup. */
  apiKeyCache: RememberedReads<User>;
  /** Where counters and observations go (the server's Prometheus registry); absent: nowhere. */
  metrics?: CoreMetrics;
  /**
   * Runs `work` in one store transaction (`Store.transaction`): calls that must hold together go
   * through `tx`, never `repos`, and nothing slow (no network) is awaited inside.
   */
  transaction: <T>(work: (tx: Repositories) => Promise<T>) => Promise<T>;
}
