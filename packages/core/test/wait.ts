import { setTimeout as sleep } from "node:timers/promises";
import type { Sandbox } from "../src/sandboxes/contracts";
import type { Caller } from "./harness";

/** Generous: a sandbox start under bubblewrap on a loaded two-core machine. */
export const SANDBOX_WAIT_MS = 45_000;

/**
 * Calls `read` every 100 ms until `done` holds for its answer, and returns that answer; throws
 * with the last answer after `timeoutMs`. Unlike `expect.poll`, usable in hooks as well.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = SANDBOX_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`${what} within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    }
    await sleep(100);
  }
}

/** Polls `sandboxes.get` (bounded) until the sandbox has `status`; returns what it answered then. */
export function waitForStatus(
  caller: Caller,
  id: string,
  status: Sandbox["status"],
): Promise<Sandbox> {
  return pollUntil(
    () => caller.sandboxes.get({ id }),
    (sandbox) => sandbox.status === status,
    `sandbox ${id} did not become ${status}`,
  );
}
