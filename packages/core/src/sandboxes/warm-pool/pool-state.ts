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
export async function ensurePoolOwner(deps: Pick<CoreDeps, "now" | "transaction">): Promise<void> {
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

export function isPoolMember(row: SandboxRow, deps: Pick<CoreDeps, "runtime">): boolean {
  return row.ownerId === POOL_OWNER_ID && row.runtime === deps.runtime.kind;
}

export function newSessionKey(): string {
  return randomBytes(24).toString("base64url");
}
