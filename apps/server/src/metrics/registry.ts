import type { Core, CoreMetrics } from "@sandbox-server/core";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { RequestHistogram } from "./request-histogram";

const SANDBOX_STATUSES = ["STARTING", "RUNNING", "PAUSED", "STOPPING", "ERROR"] as const;

/** The server's Prometheus registry and the instruments the HTTP layer and the core feed. */
export interface ServerMetrics {
  registry: Registry;
  /** Handed to the core (`createCore({ metrics })`). */
  core: CoreMetrics;
  /** One finished HTTP request: its route pattern (never the raw path), status and duration. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /**
   * One port URL connection by its first request's kind (`request`, `upgrade`) and outcome (the
   * way the port was reached, or the refusal's code); never by sandbox or port.
   */
  observePortConnection(kind: string, outcome: string): void;
  /** Gauges read from the store at scrape time need the running core. */
  attach(core: Core): void;
}

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestHistogram(
    "sandbox_server_http_request_duration_seconds",
    "HTTP requests by method, route pattern (REST) or tRPC procedure, and status",
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  registry.registerMetric(requests.asMetric());
  const forwards = new Counter({
    name: "sandbox_server_send_message_total",
    help: "send-message calls by outcome (delivered, agent_rejected, unavailable, refused_not_running, refused_archived, not_found, error)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const attempts = new Counter({
    name: "sandbox_server_webhook_delivery_attempts_total",
    help: "Webhook delivery attempts by outcome (succeeded, retry: failed and will be retried, failed: failed for good)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const lag = new Histogram({
    name: "sandbox_server_event_follower_lag_seconds",
    help: "Seconds between an agent-server event's timestamp and when the control plane stored it",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const egressDenied = new Counter({
    name: "sandbox_server_sandbox_egress_denied_total",
    help: "Connections a sandbox's egress policy refused, by sandbox (a deleted sandbox's series goes)",
    labelNames: ["sandbox_id"] as const,
    registers: [registry],
  });
  const portConnections = new Counter({
    name: "sandbox_server_port_connections_total",
    help: "Port URL connections by first request kind (request, upgrade) and outcome (direct: to the sandbox's address; tunnel: through its agent server; else the refusal's error code)",
    labelNames: ["kind", "outcome"] as const,
    registers: [registry],
  });
  let core: Core | null = null;
  new Gauge({
    name: "sandbox_server_sandboxes",
    help: "Sandboxes by status and runtime (read from the store at scrape time)",
    labelNames: ["status", "runtime"] as const,
    registers: [registry],
    async collect() {
      if (!core) return;
      const { repos, runtime } = core.deps;
      const counts = await Promise.all(
        SANDBOX_STATUSES.map((status) => repos.sandboxes.countByStatus([status])),
      );
      for (const [i, status] of SANDBOX_STATUSES.entries()) {
        this.set({ status, runtime: runtime.kind }, counts[i] ?? 0);
      }
    },
  });
  new Gauge({
    name: "sandbox_server_webhook_queue_depth",
    help: "Webhook deliveries pending (due or waiting for a retry), read at scrape time",
    registers: [registry],
    async collect() {
      if (core) this.set(await core.deps.repos.webhookDeliveries.countPending());
    },
  });
  return {
    registry,
    core: {
      forward: (outcome) => forwards.inc({ outcome }),
      webhookAttempt: (outcome) => attempts.inc({ outcome }),
      eventStored: (seconds) => lag.observe(Math.max(0, seconds)),
      egressDenied: (sandboxId) => egressDenied.inc({ sandbox_id: sandboxId }),
      sandboxDeleted: (sandboxId) => egressDenied.remove({ sandbox_id: sandboxId }),
    },
    observeRequest(method, route, status, seconds) {
      requests.observe(method, route, status, seconds);
    },
    observePortConnection(kind, outcome) {
      portConnections.inc({ kind, outcome });
    },
    attach(running) {
      core = running;
    },
  };
}
