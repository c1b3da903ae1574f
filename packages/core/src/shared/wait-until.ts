import { z } from "zod";

/** The longest a read may wait (`timeout_s`), and how long it waits when not told. */
export const MAX_WAIT_SECONDS = 60;
export const DEFAULT_WAIT_SECONDS = 30;

export const waitTimeoutField = {
  timeout_s: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_WAIT_SECONDS)
    .default(DEFAULT_WAIT_SECONDS)
    .describe(
      `With \`wait_for\`: how long to wait at most, 1..${MAX_WAIT_SECONDS} seconds (default ${DEFAULT_WAIT_SECONDS}). Past it the current state is answered (200): check its status`,
    ),
};

export interface WaitUntilOptions<T> {
  read: () => Promise<T>;
  /** Whether `value` ends the wait. */
  done: (value: T) => boolean;
  /** Calls `wake` whenever what `read` answers may have changed; returns the unsubscribe. */
  subscribe: (wake: () => void) => () => void;
  timeoutMs: number;
  /**
   * Also read again this often. Over a shared store another replica's changes raise no event
   * here, so the wait falls back to polling (`sharedStorePollMs`).
   */
  pollMs?: number;
}

/** How often a long poll reads again over a shared store (see `WaitUntilOptions.pollMs`). */
export function sharedStorePollMs(deps: { sharedStore: boolean }): { pollMs?: number } {
  return deps.sharedStore ? { pollMs: 1_000 } : {};
}

/**
 * A server-side long poll: reads, and reads again only when `subscribe` signals a change (no
 * polling, unless `pollMs` asks for it), until `done` or the time is up; answers the last value read either way. A change
 * signalled while a read runs is not lost (the next read follows at once).
 */
export async function waitUntil<T>(options: WaitUntilOptions<T>): Promise<T> {
  let changed = false;
  let wake: () => void = () => {};
  const unsubscribe = options.subscribe(() => {
    changed = true;
    wake();
  });
  const deadline = Date.now() + options.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      changed = false;
      const value = await options.read();
      const left = deadline - Date.now();
      if (options.done(value) || left <= 0) return value;
      if (!changed) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, Math.min(left, options.pollMs ?? left));
        });
        clearTimeout(timer);
      }
    }
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}
