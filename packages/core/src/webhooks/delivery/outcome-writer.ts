import { setTimeout as sleep } from "node:timers/promises";
import type { DeliveryOutcome } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreDeps } from "../../deps";

/** Pause before a batch's next try: 50 ms, doubling, at most 1 s. */
const FIRST_RETRY_MS = 50;
const MAX_RETRY_MS = 1_000;
/** Tries of a batch once the worker stops; while it runs, a batch is tried until it is stored. */
const TRIES_STOPPING = 5;
/** A failing batch is logged at its first failed try and every this many after. */
const LOG_EVERY = 5;
/**
 * After a batch of at least `BUSY_BATCH` outcomes the next write waits this long for more: under a
 * stream, runs end a few at a time, and a statement per few outcomes cost the store more than
 * the sends did. A quiet worker's outcome is written at once.
 */
const BUSY_GATHER_MS = 10;
const BUSY_BATCH = 8;

interface Waiting {
  outcomes: DeliveryOutcome[];
  done: (error?: unknown) => void;
}

/**
 * Writes attempts' outcomes for the delivery worker, one statement for whatever came in while the
 * last write ran (and, under a stream, a few milliseconds more): the bookkeeping costs a write
 * per batch, not per delivery, which is what lets deliveries keep up with a stream of events
 * (on SQLite, each write also waits for the ingest worker's lock). While the worker runs (`running`), a failed write is tried again until it is
 * stored: the runs waiting for it keep their slots, so their heads are not due to this worker
 * meanwhile, and nothing already delivered is sent again because its outcome came late. Once the
 * worker stops, a batch gets a few more tries; if it still fails, its rows keep their claims until
 * these expire and are then sent again (at-least-once).
 */
export class OutcomeWriter {
  private waiting: Waiting[] = [];
  private writing = false;
  private busy = false;

  constructor(
    private readonly deps: Pick<CoreDeps, "repos" | "replicaId" | "log">,
    private readonly running: () => boolean,
  ) {}

  /** Resolves once `outcomes` are stored; rejects when their batch could not be. */
  write(outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ outcomes, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        if (this.busy && this.running()) await sleep(BUSY_GATHER_MS);
        const batch = this.waiting;
        this.waiting = [];
        const outcomes = batch.flatMap((w) => w.outcomes);
        this.busy = outcomes.length >= BUSY_BATCH;
        const error = await this.store(outcomes);
        for (const w of batch) w.done(error);
      }
    } finally {
      this.writing = false;
    }
  }

  /** Undefined when stored, else the last error. */
  private async store(outcomes: DeliveryOutcome[]): Promise<unknown> {
    let error: unknown;
    for (let tried = 0; ; tried++) {
      if (tried > 0) {
        if (!this.running() && tried >= TRIES_STOPPING) return error;
        if (tried % LOG_EVERY === 1) {
          this.deps.log.warn(
            { outcomes: outcomes.length, tried, reason: errorMessage(error) },
            "recording webhook outcomes failed; trying again",
          );
        }
        await sleep(Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (tried - 1)));
      }
      try {
        await this.deps.repos.webhookDeliveries.recordOutcomes(outcomes, this.deps.replicaId);
        return undefined;
      } catch (caught) {
        error = caught ?? new Error("recording webhook outcomes failed");
      }
    }
  }
}
