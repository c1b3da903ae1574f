import type { IngestConfig } from "./ingest-deps";

/** What the main thread tells the ingest worker. */
export type ToWorker =
  /** `followId` names this following of the conversation (it may be followed again later). */
  | { type: "follow"; followId: number; conversationId: string; sandboxId: string }
  | { type: "unfollow"; followId: number }
  /** Stop every follower, store what they received, close the store, then end the thread. */
  | { type: "close" };

export type LogLevel = "debug" | "info" | "warn" | "error";

/** What the ingest worker tells the main thread. */
export type FromWorker =
  | { type: "ready" }
  /** The worker could not start (its store would not open): the main thread follows instead. */
  | { type: "failed"; reason: string }
  /** A follower ended by itself (its conversation or sandbox is gone). */
  | { type: "ended"; followId: number }
  /** What storing a batch of events changed, for the main thread's memory and listeners. */
  | { type: "stored"; notice: StoredNotice }
  | { type: "log"; level: LogLevel; fields: Record<string, unknown>; message: string };

export interface StoredNotice {
  /** [sandboxId, when]: the sandbox's agent produced events (not idle). */
  activity: [string, number][];
  /** Conversations whose events were stored (`conversation.activity`). */
  conversations: string[];
  /** Outbox rows were committed (`webhooks.queued`). */
  webhooksQueued: boolean;
  /** `CoreMetrics.eventStored` observations, in seconds. */
  lags: number[];
}

/** The ingest worker's `workerData`: the server's own part, and the core's settings. */
export interface IngestWorkerData<T = unknown> {
  store: T;
  config: IngestConfig;
}
