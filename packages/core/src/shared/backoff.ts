/**
 * Exponential backoff with "equal jitter": retry `attempt` (1, 2, ...) waits between half and all
 * of min(max, base * 2^(attempt-1)), so many clients failing together do not retry in lockstep.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
