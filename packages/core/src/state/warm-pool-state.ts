/**
 * How long a claim's refill waits before it starts. Starting a sandbox costs a burst of CPU (a
 * container create in dockerd, or bwrap and node), which on a small host delayed the claim's own
 * answer and its owner's first calls; the pool still has its other members meanwhile.
 */
export const REFILL_AFTER_CLAIM_MS = 250;

/**
 * Memory-only bookkeeping of one core's pool (the pool's records are ordinary sandbox rows):
 * made once by the core and handed to the supervisor, claims, evictions and refills.
 */
export class WarmPoolState {
  /** Pool sandboxes being claimed or evicted right now: nobody else picks them. */
  readonly taken = new Set<string>();
  /** The refill under way, if any: one at a time. */
  refilling: Promise<void> | null = null;
  /** Starts a refill now (set by the supervisor, which runs the pool). */
  wake: (() => void) | null = null;
  /** While the supervisor runs: a refill starts no sandbox after it stopped. */
  active = false;
  /** When each RUNNING member's agent server was last probed (the refill keeps it connected). */
  readonly probed = new Map<string, number>();

  /** A claim took a member: refill shortly rather than at the next supervisor pass. */
  refillSoon(): void {
    setTimeout(() => this.wake?.(), REFILL_AFTER_CLAIM_MS).unref();
  }
}
