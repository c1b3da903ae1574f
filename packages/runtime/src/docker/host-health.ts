import type Dockerode from "dockerode";
import { errorMessage } from "../error-message";

/** What the control plane knows about one Docker host's daemon. */
export type HostHealth =
  | { state: "unknown" }
  | { state: "up"; failures: number; firstFailureAt: number | null; lastError: string | null }
  | { state: "down"; since: number; reason: string };

export interface HostProbeOptions {
  /** How long one ping may take (default 3000 ms). */
  timeoutMs: number;
  /** Consecutive failed pings before the host counts as down (default 2). */
  downAfterFailures: number;
}

export const DEFAULT_PROBE: HostProbeOptions = { timeoutMs: 3000, downAfterFailures: 2 };

/** One ping, bounded by `timeoutMs` whatever the socket does; resolves with the failure or null. */
export async function pingDaemon(docker: Dockerode, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer to a ping within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    const answered = docker.ping().then(
      () => null,
      (error: unknown) => errorMessage(error) || "ping failed",
    );
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The next health after a probe. A host goes down after `downAfterFailures` failed pings in a row
 * (one lost ping is not a dead machine), and up again at the first ping that answers.
 */
export function nextHealth(
  health: HostHealth,
  failure: string | null,
  now: number,
  options: HostProbeOptions,
): HostHealth {
  if (failure === null) return { state: "up", failures: 0, firstFailureAt: null, lastError: null };
  if (health.state === "down") return health;
  // Never seen up: one failure is enough to keep sandboxes off it.
  if (health.state === "unknown") return { state: "down", since: now, reason: failure };
  const failures = health.failures + 1;
  const firstFailureAt = health.firstFailureAt ?? now;
  if (failures >= options.downAfterFailures) {
    return { state: "down", since: firstFailureAt, reason: failure };
  }
  return { state: "up", failures, firstFailureAt, lastError: failure };
}
