import type { WebhookDeliveryRow, WebhookRow } from "@sandbox-server/db";
import { Agent, request } from "undici";
import type { CoreDeps } from "../deps";
import { errorMessage } from "../sandboxes/service/status";
import { backoffDelay } from "../shared/backoff";
import { signDelivery } from "./service/sign";

type Outcome =
  | { kind: "answered"; statusCode: number }
  | { kind: "failed"; error: string }
  /** The worker is stopping: the attempt does not count and the row stays pending. */
  | { kind: "interrupted" };

const USER_AGENT = "sandbox-server-webhooks/1";

/**
 * Sends the outbox. Decoupled from every request path: ingestion only writes rows and nudges the
 * worker. At most `webhookConcurrency` POSTs are in flight, each bounded by `webhookTimeoutMs`;
 * only the oldest pending row of each (webhook, stream) is sent, so a stream is delivered in
 * order and a later event waits until the earlier one succeeded or failed for good. Rows left
 * pending by a stop or crash are sent after the next start (at-least-once; receivers dedupe on
 * X-Sandbox-Server-Delivery).
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly dispatcher: Agent;
  private running = false;
  private pumpQueued = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly nudge = () => this.schedulePump();

  constructor(private readonly deps: CoreDeps) {
    this.dispatcher = new Agent({
      connect: { timeout: deps.config.webhookTimeoutMs },
      keepAliveTimeout: 10_000,
    });
  }

  start(): void {
    this.running = true;
    this.deps.events.on("webhooks.queued", this.nudge);
    this.schedulePump();
  }

  /** Aborts what is in flight (those rows stay pending) and waits until nothing runs. */
  async stop(): Promise<void> {
    this.running = false;
    this.deps.events.off("webhooks.queued", this.nudge);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    await this.dispatcher.destroy().catch(() => undefined);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  private schedulePump(): void {
    if (this.pumpQueued || !this.running) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private pump(): void {
    const free = this.deps.config.webhookConcurrency - this.inFlight.size;
    if (!this.running || free <= 0) return;
    let heads: WebhookDeliveryRow[];
    try {
      heads = this.deps.repos.webhookDeliveries.pendingHeads(free, [...this.inFlight.keys()]);
    } catch (error) {
      this.deps.log.error({ reason: errorMessage(error) }, "reading the webhook outbox failed");
      this.wakeAt(this.deps.now() + this.deps.config.webhookBackoffBaseMs);
      return;
    }
    const now = this.deps.now();
    for (const row of heads) {
      // Heads come soonest-due first: the first one not yet due sets the next wake-up.
      if (row.nextAttemptAt > now) {
        this.wakeAt(row.nextAttemptAt);
        break;
      }
      const work = this.attempt(row)
        .catch((error: unknown) => {
          this.deps.log.error(
            { deliveryId: row.id, reason: errorMessage(error) },
            "webhook delivery bookkeeping failed",
          );
        })
        .finally(() => {
          this.inFlight.delete(row.seq);
          this.schedulePump();
        });
      this.inFlight.set(row.seq, work);
    }
  }

  private wakeAt(at: number): void {
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.schedulePump();
      },
      Math.max(0, at - this.deps.now()),
    );
    this.timer.unref();
  }

  private async attempt(row: WebhookDeliveryRow): Promise<void> {
    const hook = this.deps.repos.webhooks.get(row.webhookId);
    if (!hook) return; // deleted meanwhile; its rows went with it
    const outcome = await this.post(hook, row);
    if (outcome.kind === "interrupted") return;
    this.record(row, outcome);
  }

  private async post(hook: WebhookRow, row: WebhookDeliveryRow): Promise<Outcome> {
    const timeoutMs = this.deps.config.webhookTimeoutMs;
    const timestamp = String(Math.floor(this.deps.now() / 1000));
    try {
      const response = await request(hook.url, {
        method: "POST",
        dispatcher: this.dispatcher,
        headers: {
          "content-type": "application/json",
          "user-agent": USER_AGENT,
          "x-sandbox-server-signature": signDelivery(hook.secret, timestamp, row.payload),
          "x-sandbox-server-timestamp": timestamp,
          "x-sandbox-server-delivery": row.id,
          "x-sandbox-server-event": row.eventKind,
        },
        body: row.payload,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.any([this.stopping.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await response.body.dump().catch(() => undefined);
      return { kind: "answered", statusCode: response.statusCode };
    } catch (error) {
      if (this.stopping.signal.aborted) return { kind: "interrupted" };
      return { kind: "failed", error: describeFailure(error, timeoutMs) };
    }
  }

  private record(row: WebhookDeliveryRow, outcome: Exclude<Outcome, { kind: "interrupted" }>) {
    const { deps } = this;
    const now = deps.now();
    const attempts = row.attempts + 1;
    const statusCode = outcome.kind === "answered" ? outcome.statusCode : null;
    const log = { deliveryId: row.id, webhookId: row.webhookId, attempts, statusCode };
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      deps.repos.webhookDeliveries.update(row.seq, {
        status: "succeeded",
        attempts,
        lastStatusCode: statusCode,
        lastError: null,
        completedAt: now,
        updatedAt: now,
      });
      deps.log.debug(log, "webhook delivered");
      return;
    }
    const lastError =
      outcome.kind === "failed" ? outcome.error : `The receiver answered ${statusCode}`;
    if (attempts >= deps.config.webhookMaxAttempts) {
      deps.repos.webhookDeliveries.update(row.seq, {
        status: "failed",
        attempts,
        lastStatusCode: statusCode,
        lastError,
        completedAt: now,
        updatedAt: now,
      });
      deps.log.warn({ ...log, reason: lastError }, "webhook delivery failed for good");
      return;
    }
    const delay = backoffDelay(
      attempts,
      deps.config.webhookBackoffBaseMs,
      deps.config.webhookBackoffMaxMs,
    );
    deps.repos.webhookDeliveries.update(row.seq, {
      attempts,
      lastStatusCode: statusCode,
      lastError,
      nextAttemptAt: now + delay,
      updatedAt: now,
    });
    deps.log.info(
      { ...log, reason: lastError, retryInMs: delay },
      "webhook delivery will be retried",
    );
  }
}

function describeFailure(cause: unknown, timeoutMs: number): string {
  const code = (cause as { code?: string } | null)?.code;
  const name = (cause as { name?: string } | null)?.name;
  if (code === "ECONNREFUSED") return "The receiver refused the connection";
  if (name === "TimeoutError" || (code?.startsWith("UND_ERR_") && code.endsWith("_TIMEOUT"))) {
    return `The receiver did not answer within ${timeoutMs} ms`;
  }
  return `The receiver could not be reached (${code ?? name ?? "error"})`;
}
