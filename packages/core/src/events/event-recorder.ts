import type { CoreDeps } from "../deps";
import { type EventToRecord, recordEvents } from "./service/record-event";

interface Pending extends EventToRecord {
  /** Told when the batch holding this event could not be stored. */
  onError: (error: unknown) => void;
}

/**
 * Batches followed events: everything that arrives in one turn of the event loop is stored in a
 * single transaction, after the I/O already waiting (such as the send-message responses these
 * events follow) has been handled. One commit per burst instead of one per event keeps event
 * ingestion off the request path's back.
 */
export class EventRecorder {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly deps: CoreDeps) {}

  record(pending: Pending): void {
    this.queue.push(pending);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    try {
      recordEvents(this.deps, batch);
    } catch (error) {
      // Nothing of the batch was stored: each follower reconnects and is sent its events again.
      for (const pending of batch) pending.onError(error);
    }
  }
}

const recorders = new WeakMap<CoreDeps, EventRecorder>();

/** The one recorder of a core (one batch, one transaction, for all its followers). */
export function recorderFor(deps: CoreDeps): EventRecorder {
  let recorder = recorders.get(deps);
  if (!recorder) {
    recorder = new EventRecorder(deps);
    recorders.set(deps, recorder);
  }
  return recorder;
}
