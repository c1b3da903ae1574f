import { setTimeout as sleep } from "node:timers/promises";
import type { DeliveryOutcome } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";

/** Tries of one batch, waiting 50 ms, then twice as long each time, in between. */
const TRIES = 5;
const FIRST_RETRY_MS = 50;

interface Waiting {
  outcomes: DeliveryOutcome[];
  done: (error?: unknown) => void;
}

/**
 * Writes attempts' outcomes for the delivery worker, one statement for whatever came in while the
 * last write ran: the bookkeeping costs a write per batch, not per delivery, which is what lets
 * deliveries keep up with a stream of events (on SQLite, each write also waits for the ingest
 * worker's lock). A failed write is tried again a few times; if it still fails, its rows keep
 * their claims until these expire and are then sent again (at-least-once).
 */
export class OutcomeWriter {
  private waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly deps: Pick<CoreDeps, "repos" | "replicaId">) {}

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
        const batch = this.waiting;
        this.waiting = [];
        const error = await this.store(batch.flatMap((w) => w.outcomes));
        for (const w of batch) w.done(error);
      }
    } finally {
      this.writing = false;
    }
  }

  /** Undefined when stored, else the last error. */
  private async store(outcomes: DeliveryOutcome[]): Promise<unknown> {
    let error: unknown;
    for (let tried = 0; tried < TRIES; tried++) {
      if (tried > 0) await sleep(FIRST_RETRY_MS * 2 ** (tried - 1));
      try {
        await this.deps.repos.webhookDeliveries.recordOutcomes(outcomes, this.deps.replicaId);
        return undefined;
      } catch (caught) {
        error = caught ?? new Error("recording webhook outcomes failed");
      }
    }
    return error;
  }
}
