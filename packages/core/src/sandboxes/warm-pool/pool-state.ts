import { randomBytes } from "node:crypto";
import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";

/**
 * The owner of warm-pool sandboxes: a user row that exists only as a tombstone (`deleted_at`
 * set). The foreign key of `sandboxes.owner_id` holds, no key can ever sign in as it, and every
 * search is by owner, so no user's listing shows a pool sandbox; user listings and counts leave
 * deleted users out, so it is never "a second user" either.
 */
export const POOL_OWNER_ID = "usr_warm_pool";

/** Creates the pool owner's tombstone row once. */
export async function ensurePoolOwner(deps: CoreDeps): Promise<void> {
  await deps.transaction(async (tx) => {
    // `get` skips deleted users; `restore` tells whether the row exists at all.
    const exists = await tx.users.restore(POOL_OWNER_ID);
    if (!exists) {
      await tx.users.insert({
        id: POOL_OWNER_ID,
        name: "warm pool",
        isAdmin: false,
        createdAt: deps.now(),
      });
    }
    await tx.users.markDeleted(POOL_OWNER_ID, deps.now());
  });
}

export function isPoolMember(row: SandboxRow, deps: CoreDeps): boolean {
  return row.ownerId === POOL_OWNER_ID && row.runtime === deps.runtime.kind;
}

export function newSessionKey(): string {
  return randomBytes(24).toString("base64url");
}

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
