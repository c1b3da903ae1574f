import { setTimeout as sleep } from "node:timers/promises";

/**
 * Calls `probe` every `intervalMs` until it returns a value (not undefined); throws, naming what
 * was awaited and the last answer, when `timeoutMs` passes first.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs = 90_000, intervalMs = 1000 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(intervalMs);
  }
}
