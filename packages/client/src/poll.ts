export interface PollOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Longest pause between two reads (default 1 s); the first pauses are shorter. */
  intervalMs?: number;
  signal?: AbortSignal;
}

const FIRST_INTERVAL_MS = 100;

/** Thrown when a wait did not see what it waited for in time. */
export class WaitTimeoutError extends Error {
  override readonly name = "WaitTimeoutError";
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Reads until `settled` says the value is final, pausing 100 ms at first and doubling up to
 * `intervalMs`: fast for what settles quickly, bounded load for what takes long.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  settled: (value: T) => boolean,
  describe: (last: T | undefined) => string,
  options: PollOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxInterval = Math.max(FIRST_INTERVAL_MS, options.intervalMs ?? 1000);
  const deadline = Date.now() + timeoutMs;
  let interval = FIRST_INTERVAL_MS;
  let last: T | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    last = await read();
    if (settled(last)) return last;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(`${describe(last)} after ${timeoutMs} ms`);
    await sleep(Math.min(interval, left), options.signal);
    interval = Math.min(interval * 2, maxInterval);
  }
}
