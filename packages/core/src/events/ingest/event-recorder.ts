import { type EventToRecord, recordEvents } from "../service/record-event";
import type { IngestDeps } from "./ingest-deps";

interface Pending extends EventToRecord {
  /** Told when the batch holding this event could not be stored. */
  onError: (error: unknown) => void;
}

/**
 * How long followed events wait to be stored together. Gathering a few milliseconds of them into
 * one transaction (one commit) cut the recording cost per event by about half under load, and a
 * few milliseconds is nothing to a reader of the event log or a webhook.
 */
export const BATCH_WINDOW_MS = 5;
/**
 * The window after a batch of at least `BUSY_BATCH` events: a transaction costs a handful of
 * statements however many events it holds (on PostgreSQL each is a round trip and the server's
 * CPU), so under a sustained stream longer windows make fewer, fuller transactions. A quiet
 * conversation's next event is back on the short window.
 */
export const BUSY_BATCH_WINDOW_MS = 25;
const BUSY_BATCH = 8;

/**
 * Batches followed events: everything that arrives within BATCH_WINDOW_MS (BUSY_BATCH_WINDOW_MS
 * while a stream keeps batches full) is stored in a single transaction. One commit per burst
 * instead of one per event keeps event ingestion off the request path's back. Batches are stored one after another (events that arrive while one is
 * being stored wait for the next), so a conversation's events are stored in arrival order.
 * `flush` stores what is pending at once and resolves when everything received is stored (on
 * shutdown).
 */
export class EventRecorder {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The batch being stored, and every batch before it. */
  private storing: Promise<void> = Promise.resolve();
  private window = BATCH_WINDOW_MS;

  constructor(private readonly deps: IngestDeps) {}

  record(pending: Pending): void {
    this.queue.push(pending);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.window);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.queue;
    if (batch.length > 0) {
      this.queue = [];
      this.window = batch.length >= BUSY_BATCH ? BUSY_BATCH_WINDOW_MS : BATCH_WINDOW_MS;
      this.storing = this.storing.then(() => this.store(batch));
    }
    return this.storing;
  }

  private async store(batch: Pending[]): Promise<void> {
    try {
      await recordEvents(this.deps, batch);
    } catch (error) {
      // Nothing of the batch was stored: each follower reconnects and is sent its events again.
      for (const pending of batch) pending.onError(error);
    }
  }
}
