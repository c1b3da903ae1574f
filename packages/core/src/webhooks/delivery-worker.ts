import type { DueDelivery } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import { Agent } from "undici";
import type { CoreDeps } from "../deps";
import { FairShare } from "./delivery/fair-share";
import { postDelivery } from "./delivery/post-delivery";
import { recordOutcome } from "./delivery/record-outcome";
import { checkedConnector } from "./destination/checked-connector";

/** Most due deliveries read per look at the outbox. */
const MAX_CANDIDATES = 500;
/** A claim covers one attempt (bounded by the webhook timeout) and the bookkeeping after it. */
const CLAIM_MARGIN_MS = 5_000;

/**
 * Sends the outbox. Decoupled from every request path: ingestion only writes rows and nudges the
 * worker. At most `webhookConcurrency` POSTs are in flight, at most `webhookConcurrencyPerUser`
 * of them for one user, shared round-robin between users and between each user's webhooks
 * (`FairShare`), each bounded by `webhookTimeoutMs`. Only the oldest pending row of each
 * (webhook, stream) is sent, so a stream is delivered in order and a later event waits until the
 * earlier one succeeded or failed for good. Rows left pending by a stop or crash are sent after
 * the next start (at-least-once; receivers dedupe on webhook-id). Every new
 * connection is vetted by the destination policy (`checkedConnector`).
 *
 * Each row is claimed (`webhookDeliveries.claim`, `FOR UPDATE SKIP LOCKED` on PostgreSQL) for
 * `webhookTimeoutMs` + 5 s before it is sent, so two workers (two replicas while the duties lease
 * changes hands) never send one row at once; a claim left by a killed replica expires and the row
 * is sent again (same webhook-id). Restartable: `stop()` then `start()` (the duties lease moves).
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly share = new FairShare();
  private stopping = new AbortController();
  private dispatcher: Agent | null = null;
  private running = false;
  private pumpQueued = false;
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly nudge = () => this.schedulePump();

  constructor(private readonly deps: CoreDeps) {}

  start(): void {
    if (this.running) return;
    this.stopping = new AbortController();
    this.dispatcher = new Agent({
      connect: checkedConnector(this.deps, this.deps.config.webhookTimeoutMs),
      keepAliveTimeout: 10_000,
    });
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
    const dispatcher = this.dispatcher;
    this.dispatcher = null;
    await dispatcher?.destroy().catch(() => undefined);
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  private schedulePump(): void {
    if (this.pumpQueued || !this.running) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      void this.pump();
    });
  }

  /** One look at the outbox at a time; a nudge meanwhile makes it look once more. */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        await this.fill();
      } while (this.pumpAgain && this.running);
    } finally {
      this.pumping = false;
    }
  }

  private async fill(): Promise<void> {
    const { config, repos } = this.deps;
    const free = config.webhookConcurrency - this.inFlight.size;
    if (!this.running || free <= 0) return;
    const perUser = config.webhookConcurrencyPerUser;
    const now = this.deps.now();
    let due: DueDelivery[];
    try {
      due = await repos.webhookDeliveries.dueHeads({
        now,
        limit: Math.min(MAX_CANDIDATES, free * perUser),
        perOwner: perUser,
        excludeSeqs: [...this.inFlight.keys()],
        excludeOwners: this.share.ownersAtLimit(perUser),
      });
      const next = await repos.webhookDeliveries.nextDueAt(now);
      if (next !== null) this.wakeAt(next);
    } catch (error) {
      this.deps.log.error({ reason: errorMessage(error) }, "reading the webhook outbox failed");
      this.wakeAt(this.deps.now() + config.webhookBackoffBaseMs);
      return;
    }
    if (!this.running) return;
    const picked = this.share.pick(due, free, perUser);
    let claimed: Set<number>;
    try {
      const until = now + config.webhookTimeoutMs + CLAIM_MARGIN_MS;
      const seqs = picked.map((row) => row.seq);
      claimed = new Set(await repos.webhookDeliveries.claim(seqs, this.deps.replicaId, now, until));
    } catch (error) {
      for (const row of picked) this.share.release(row);
      this.deps.log.error({ reason: errorMessage(error) }, "claiming webhook deliveries failed");
      this.wakeAt(this.deps.now() + config.webhookBackoffBaseMs);
      return;
    }
    for (const row of picked) {
      // Another worker has it (or it is done): not ours to send.
      if (claimed.has(row.seq) && this.running) this.dispatch(row);
      else this.share.release(row);
    }
  }

  private dispatch(row: DueDelivery): void {
    const work = this.attempt(row)
      .catch((error: unknown) => {
        this.deps.log.error(
          { deliveryId: row.id, reason: errorMessage(error) },
          "webhook delivery bookkeeping failed",
        );
      })
      .finally(() => {
        this.inFlight.delete(row.seq);
        this.share.release(row);
        this.schedulePump();
      });
    this.inFlight.set(row.seq, work);
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

  private async attempt(row: DueDelivery): Promise<void> {
    const hook = await this.deps.repos.webhooks.get(row.webhookId);
    if (!hook) return; // deleted meanwhile; its rows went with it
    const dispatcher = this.dispatcher;
    if (!dispatcher) return; // stopped meanwhile; the claim expires and the row is sent later
    const outcome = await postDelivery(hook, row, {
      dispatcher,
      timeoutMs: this.deps.config.webhookTimeoutMs,
      stopping: this.stopping.signal,
      now: this.deps.now(),
    });
    if (outcome.kind === "interrupted") {
      // Not an attempt: the claim is let go, so whoever runs the duties next sends it at once.
      await this.deps.repos.webhookDeliveries.update(row.seq, { updatedAt: this.deps.now() });
      return;
    }
    await recordOutcome(this.deps, row, outcome);
  }
}
