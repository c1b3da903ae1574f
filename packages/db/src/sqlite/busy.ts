import { setTimeout as sleep } from "node:timers/promises";
import { StoreBusyError } from "../port/store";

/** First and longest pause between two attempts on a locked database. */
const FIRST_RETRY_DELAY_MS = 5;
const MAX_RETRY_DELAY_MS = 100;

/** SQLITE_BUSY / SQLITE_LOCKED (and their extended codes): another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
  );
}

export function busyError(cause?: unknown): StoreBusyError {
  return new StoreBusyError(
    "The database is locked by another connection; try again shortly",
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY, waiting between
 * attempts on timers (5 ms, doubling, at most 100 ms) so the event loop keeps serving everything
 * else. Past `deadline` (a `performance.now()` time) it gives up with `StoreBusyError`.
 */
export async function retryWhileBusy<T>(
  attempt: () => T | Promise<T>,
  deadline: number,
): Promise<T> {
  let delay = FIRST_RETRY_DELAY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusy(error)) throw error;
      const left = deadline - performance.now();
      if (left <= 0) throw busyError(error);
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    }
  }
}
