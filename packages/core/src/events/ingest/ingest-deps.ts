import type { CoreConfig, CoreDeps } from "../../deps";

/** The settings following and recording events read (plain data: they cross to a worker). */
export type IngestConfig = Pick<
  CoreConfig,
  "storedEventMaxBytes" | "followerReconnectBaseMs" | "followerReconnectMaxMs"
>;

export function ingestConfigOf(config: CoreConfig): IngestConfig {
  const { storedEventMaxBytes, followerReconnectBaseMs, followerReconnectMaxMs } = config;
  return { storedEventMaxBytes, followerReconnectBaseMs, followerReconnectMaxMs };
}

/**
 * What following a conversation and recording its events needs: the core's own deps on the main
 * thread, or the ingest worker's (its own store connection, and messages back to the main thread
 * for the logger, the activity map, the metrics and the core's events).
 */
export type IngestDeps = Pick<
  CoreDeps,
  "repos" | "transaction" | "log" | "now" | "events" | "metrics"
> & {
  config: IngestConfig;
  /** Last activity per sandbox (the idle auto-pause reads it). */
  activity: { set(sandboxId: string, at: number): unknown };
};
