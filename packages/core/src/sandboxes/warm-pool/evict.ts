import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { type RemoveLockedSandboxDeps, removeSandbox } from "../service/delete-sandbox";
import { updateSandbox } from "../service/status";
import { isPoolMember, POOL_OWNER_ID } from "./pool-state";

/** What the warm pool's claims, evictions and refills use. */
export type WarmPoolDeps = RemoveLockedSandboxDeps &
  Pick<CoreDeps, "warmPool"> & {
    config: Pick<CoreConfig, "maxRunningSandboxes" | "warmPoolSize">;
  };

const ACTIVE = ["STARTING", "RUNNING"];

/**
 * At the running limit, one pool sandbox is removed so that a user's create (or resume) can
 * have its slot: pool members count against `MAX_RUNNING_SANDBOXES`, but never at a user's
 * expense. Does nothing below the limit or without pool members.
 */
export async function evictWarmSandboxAtLimit(deps: WarmPoolDeps): Promise<void> {
  // Without a pool there is nothing to evict (members of an earlier run go at start).
  if (deps.config.warmPoolSize <= 0) return;
  const active = await deps.repos.sandboxes.countByStatus(ACTIVE);
  if (active < deps.config.maxRunningSandboxes) return;
  const members = (await deps.repos.sandboxes.listByStatus(ACTIVE)).filter((row) =>
    isPoolMember(row, deps),
  );
  // A RUNNING member's lock is free; a STARTING one's is held until its start settles.
  members.sort((a, b) => Number(a.status === "STARTING") - Number(b.status === "STARTING"));
  const { taken } = deps.warmPool;
  for (const member of members) {
    if (taken.has(member.id)) continue;
    if (await retireWarmSandbox(deps, member, "making room for a user's sandbox")) return;
  }
}

/**
 * Removes a pool sandbox (dead, surplus, or in a user's way) under its lock; false when it is
 * no longer a pool sandbox to remove (claimed meanwhile, already going).
 */
export async function retireWarmSandbox(
  deps: WarmPoolDeps,
  member: SandboxRow,
  reason: string,
): Promise<boolean> {
  const { taken } = deps.warmPool;
  taken.add(member.id);
  try {
    return await deps.locks.run(member.id, async () => {
      const current = await deps.repos.sandboxes.get(member.id);
      if (!current || current.ownerId !== POOL_OWNER_ID || current.status === "STOPPING") {
        return false;
      }
      deps.log.info({ sandboxId: member.id, reason }, "removing warm sandbox");
      await updateSandbox(deps, member.id, { status: "STOPPING" });
      await removeSandbox(deps, current);
      return true;
    });
  } catch (error) {
    deps.log.error(
      { sandboxId: member.id, reason: errorMessage(error) },
      "warm sandbox removal failed",
    );
    return false;
  } finally {
    taken.delete(member.id);
  }
}
