import type {
  DeliveryOutcome,
  DueDelivery,
  WebhookDeliveryRow,
  WebhookRow,
} from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import { Agent } from "undici";
import type { CoreConfig, CoreDeps } from "../../deps";
import { checkedConnector } from "../destination/checked-connector";
import { FairShare } from "./fair-share";
import { OutcomeWriter } from "./outcome-writer";
import { postDelivery } from "./post-delivery";
import { outcomeOf, unsent } from "./record-outcome";

/** Most due deliveries read per look at the outbox. */
const MAX_CANDIDATES = 500;
/** A claim covers one attempt (bounded by the webhook timeout) and the bookkeeping after it. */
const CLAIM_MARGIN_MS = 5_000;
/**
 * A run's next attempt starts only while the claim still covers a whole attempt and this much
 * bookkeeping: a run holds its slot for at most `CLAIM_MARGIN_MS` - this, plus one attempt.
 */
const BOOKKEEPING_MS = 2_000;
/** Most deliveries of one stream sent on one claim (the head and those queued behind it). */
const MAX_RUN = 50;
/**
 * Least time between two looks at the outbox. Under a stream of events every stored batch and
 * every finished run asks for a look; each costs a few statements (two of them walk the pending
 * heads), so a look per nudge spent more on bookkeeping than on sending. A few milliseconds
 * gather what came meanwhile into one look.
 */
const LOOK_GAP_MS = 5;
/** The gap after a look that started at least `BUSY_LOOK` deliveries: fuller runs, fewer looks. */
const BUSY_LOOK_GAP_MS = 20;
const BUSY_LOOK = 8;

/** A head and the rows queued behind it, claimed together and sent in order. */
interface Run {
  head: DueDelivery;
  rows: WebhookDeliveryRow[];
  until: number;
}

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
 * A slot sends a run: a stream's head and up to `MAX_RUN` - 1 rows queued behind it, claimed
 * together and posted one at a time, each only after the one before it succeeded or failed for
 * good; a retry to schedule, a stop, or a claim too short for another attempt ends the run and
 * gives the rest back unsent. Outcomes are written in batches (`OutcomeWriter`), and the slot is
 * freed once its run's are stored. Claims and outcome writes thus cost a statement per look at the
 * outbox and per batch, not per delivery (the wire format stays one event per request).
 *
 * Rows are claimed (`webhookDeliveries.claim`, `FOR UPDATE SKIP LOCKED` on PostgreSQL) for
 * `webhookTimeoutMs` + 5 s before they are sent, so two workers (two replicas while the duties
 * lease changes hands) never send one row at once; a claim left by a killed replica expires and
 * its rows are sent again (same webhook-id). Only a run that starts at a head this worker claimed
 * is sent, and only the unbroken stretch of claimed rows behind it, so a stream stays in order even
 * when claims interleave. Restartable: `stop()` then `start()` (the duties lease moves).
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly share = new FairShare();
  private readonly outcomes: OutcomeWriter;
  private stopping = new AbortController();
  private dispatcher: Agent | null = null;
  private running = false;
  private pumpQueued = false;
  private pumping = false;
  private pumpAgain = false;
  private lastLook = Number.NEGATIVE_INFINITY;
  private lookGap = LOOK_GAP_MS;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly nudge = () => this.schedulePump();

  constructor(
    private readonly deps: Pick<
      CoreDeps,
      "events" | "log" | "metrics" | "now" | "replicaId" | "repos"
    > & {
      config: Pick<
        CoreConfig,
        | "webhookAllowPrivateNetworks"
        | "webhookConcurrency"
        | "webhookConcurrencyPerUser"
        | "webhookBackoffBaseMs"
        | "webhookBackoffMaxMs"
        | "webhookDeniedTargets"
        | "webhookMaxAttempts"
        | "webhookResolveHost"
        | "webhookTimeoutMs"
      >;
    },
  ) {
    this.outcomes = new OutcomeWriter(deps, () => this.running);
  }

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

  /** A look at the outbox at the next turn, or once the gap since the last has passed. */
  private schedulePump(): void {
    if (this.pumpQueued || !this.running) return;
    this.pumpQueued = true;
    const look = () => {
      this.pumpQueued = false;
      void this.pump();
    };
    const wait = this.lastLook + this.lookGap - performance.now();
    if (wait > 0) setTimeout(look, wait).unref();
    else setImmediate(look);
  }

  /** One look at the outbox at a time; a nudge meanwhile makes it look once more. */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pumpAgain = false;
    this.lastLook = performance.now();
    try {
      await this.fill();
    } finally {
      this.pumping = false;
    }
    if (this.pumpAgain) this.schedulePump();
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
      // Runs started now ask for the next look when they end; only a quiet outbox needs a timer
      // (a retry's time, or another holder's claim running out).
      if (due.length === 0) {
        const next = await repos.webhookDeliveries.nextDueAt(now);
        if (next !== null) this.wakeAt(next);
      }
    } catch (error) {
      this.deps.log.error({ reason: errorMessage(error) }, "reading the webhook outbox failed");
      this.wakeAt(this.deps.now() + config.webhookBackoffBaseMs);
      return;
    }
    if (!this.running) return;
    const picked = this.share.pick(due, free, perUser);
    let runs: Run[];
    try {
      runs = await this.claimRuns(picked, now);
    } catch (error) {
      for (const row of picked) this.share.release(row);
      this.deps.log.error({ reason: errorMessage(error) }, "claiming webhook deliveries failed");
      this.wakeAt(this.deps.now() + config.webhookBackoffBaseMs);
      return;
    }
    const sending = runs.reduce((n, run) => n + run.rows.length, 0);
    this.lookGap = sending >= BUSY_LOOK ? BUSY_LOOK_GAP_MS : LOOK_GAP_MS;
    const started = new Set(runs.map((run) => run.head.seq));
    // Another worker has it (or it is done): not ours to send.
    for (const row of picked) if (!started.has(row.seq)) this.share.release(row);
    // Each webhook read once per look, however many of its streams go out.
    const hooks = new Map<string, Promise<WebhookRow | undefined>>();
    for (const run of runs) {
      const id = run.head.webhookId;
      const hook = hooks.get(id) ?? repos.webhooks.get(id);
      hooks.set(id, hook);
      this.dispatch(run, hook);
    }
  }

  /**
   * Claims the picked heads and the rows behind them; answers the runs to send. Rows claimed but
   * not in a run (behind a head another worker got, or past a gap) are given back at once.
   */
  private async claimRuns(picked: DueDelivery[], now: number): Promise<Run[]> {
    if (picked.length === 0) return [];
    const { config, repos, replicaId } = this.deps;
    const behind = await repos.webhookDeliveries.pendingBehind(
      picked.map((row) => row.seq),
      MAX_RUN - 1,
    );
    const until = now + config.webhookTimeoutMs + CLAIM_MARGIN_MS;
    const seqs = [...picked, ...behind].map((row) => row.seq);
    const claimed = new Set(await repos.webhookDeliveries.claim(seqs, replicaId, now, until));
    const queued = new Map<string, WebhookDeliveryRow[]>();
    for (const row of behind) {
      const key = streamKey(row);
      queued.set(key, [...(queued.get(key) ?? []), row]);
    }
    const runs: Run[] = [];
    const strays: WebhookDeliveryRow[] = [];
    for (const head of picked) {
      const tail = queued.get(streamKey(head)) ?? [];
      if (!claimed.has(head.seq) || !this.running) {
        strays.push(...tail.filter((row) => claimed.has(row.seq)));
        continue;
      }
      const gap = tail.findIndex((row) => !claimed.has(row.seq));
      const sent = gap === -1 ? tail : tail.slice(0, gap);
      strays.push(...tail.slice(sent.length).filter((row) => claimed.has(row.seq)));
      runs.push({ head, rows: [head, ...sent], until });
    }
    if (!this.running) strays.push(...runs.flatMap((run) => run.rows));
    if (strays.length > 0) {
      // Not fatal to the runs: unwritten, the strays' claims expire and they are due again.
      await this.outcomes.write(strays.map(unsent)).catch((error: unknown) => {
        this.deps.log.error(
          { reason: errorMessage(error) },
          "giving back webhook deliveries failed",
        );
      });
    }
    return this.running ? runs : [];
  }

  private dispatch(run: Run, hook: Promise<WebhookRow | undefined>): void {
    const { head } = run;
    const work = this.send(run, hook)
      .catch((error: unknown) => {
        this.deps.log.error(
          { deliveryId: head.id, reason: errorMessage(error) },
          "webhook delivery bookkeeping failed",
        );
      })
      .finally(() => {
        this.inFlight.delete(head.seq);
        this.share.release(head);
        this.schedulePump();
      });
    this.inFlight.set(head.seq, work);
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

  /** Sends a run's rows in order, then stores their outcomes (the rest given back unsent). */
  private async send(run: Run, webhook: Promise<WebhookRow | undefined>): Promise<void> {
    const { config } = this.deps;
    const hook = await webhook;
    if (!hook) return; // deleted meanwhile; its rows went with it
    const outcomes: DeliveryOutcome[] = [];
    let next = 0;
    for (; next < run.rows.length; next++) {
      const row = run.rows[next] as WebhookDeliveryRow;
      const dispatcher = this.dispatcher;
      // Stopped meanwhile, or the claim might end during the attempt: the rest waits.
      if (!dispatcher) break;
      if (next > 0 && this.deps.now() + config.webhookTimeoutMs + BOOKKEEPING_MS > run.until) break;
      const outcome = await postDelivery(hook, row, {
        dispatcher,
        timeoutMs: config.webhookTimeoutMs,
        stopping: this.stopping.signal,
        now: this.deps.now(),
      });
      // Not an attempt: given back, so whoever runs the duties next sends it at once.
      if (outcome.kind === "interrupted") break;
      const recorded = outcomeOf(this.deps, row, outcome);
      outcomes.push(recorded);
      // A retry to come holds the rest of the stream back.
      if (recorded.status === "pending") {
        next++;
        break;
      }
    }
    outcomes.push(...run.rows.slice(next).map(unsent));
    await this.outcomes.write(outcomes);
  }
}

/** Rows of one (webhook, stream) are sent in order. */
function streamKey(row: Pick<WebhookDeliveryRow, "webhookId" | "stream">): string {
  return `${row.webhookId}\u0000${row.stream}`;
}
