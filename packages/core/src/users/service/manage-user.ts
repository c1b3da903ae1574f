import type { SandboxRow, User } from "@sandbox-server/db";
import { forgetUserKeys } from "../../auth/api-keys";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { type DeleteSandboxDeps, deleteSandbox } from "../../sandboxes/service/delete-sandbox";
import { type PauseSandboxDeps, pauseSandbox } from "../../sandboxes/service/pause-sandbox";

/** A user an admin may act on: exists, not deleted, and not the admin themself. */
async function findManagedUser(
  deps: Pick<CoreDeps, "repos">,
  actorId: string,
  userId: string,
): Promise<User> {
  const user = await deps.repos.users.get(userId);
  if (!user) throw new AppError("USER_NOT_FOUND", `User ${userId} was not found`);
  if (user.id === actorId) {
    throw new AppError(
      "CANNOT_MODIFY_SELF",
      "Admins cannot disable or delete themselves; ask another admin",
    );
  }
  return user;
}

async function sandboxesOf(deps: Pick<CoreDeps, "repos">, userId: string): Promise<SandboxRow[]> {
  return (await deps.repos.sandboxes.listAll()).filter((row) => row.ownerId === userId);
}

/** Disabling a user: forgetting their keys here and on the other replicas, pausing their sandboxes. */
type DisableUserDeps = PauseSandboxDeps & Pick<CoreDeps, "apiKeyCache" | "notices">;

/**
 * Disabled: every key of the user is refused from this call on (the verified-key cache too), and
 * the user's running sandboxes are paused, so nothing of theirs keeps working. Idempotent.
 */
export async function disableUser(
  deps: DisableUserDeps,
  actorId: string,
  userId: string,
): Promise<User> {
  const user = await findManagedUser(deps, actorId, userId);
  const disabledAt = user.disabledAt ?? deps.now();
  if (user.disabledAt === null) await deps.repos.users.setDisabled(userId, disabledAt);
  await forgetUserKeys(deps, userId);
  for (const row of await sandboxesOf(deps, userId)) {
    if (row.status !== "RUNNING" && row.status !== "STARTING") continue;
    // A start in progress settles first (the sandbox lock); one that ended in ERROR stays so.
    await pauseSandbox(deps, userId, row.id).catch((error: unknown) => {
      if (!(error instanceof AppError && error.code === "INVALID_SANDBOX_STATE")) throw error;
    });
  }
  deps.log.info({ userId, byUserId: actorId }, "user disabled");
  return { ...user, disabledAt };
}

/** Keys work again; paused sandboxes stay paused until their owner resumes them. */
export async function enableUser(
  deps: Pick<CoreDeps, "log" | "repos">,
  actorId: string,
  userId: string,
): Promise<User> {
  const user = await findManagedUser(deps, actorId, userId);
  if (user.disabledAt !== null) await deps.repos.users.setDisabled(userId, null);
  deps.log.info({ userId, byUserId: actorId }, "user enabled");
  return { ...user, disabledAt: null };
}

/**
 * Deleted: disabled first (nothing new can start meanwhile), then every sandbox deleted (its
 * conversations archived), then the keys removed and the user left as a tombstone that the API
 * no longer shows. A sandbox that cannot be removed fails the call (503) with the user still
 * disabled; calling again finishes the job.
 */
export async function deleteUser(
  deps: DisableUserDeps & DeleteSandboxDeps,
  actorId: string,
  userId: string,
): Promise<void> {
  await disableUser(deps, actorId, userId);
  for (const row of await sandboxesOf(deps, userId)) {
    await deleteSandbox(deps, userId, row.id).catch((error: unknown) => {
      // Gone meanwhile, or already being deleted by another call: nothing left to do here.
      if (error instanceof AppError && error.code === "SANDBOX_NOT_FOUND") return;
      throw error;
    });
  }
  await deps.repos.users.markDeleted(userId, deps.now());
  await forgetUserKeys(deps, userId);
  deps.log.info({ userId, byUserId: actorId }, "user deleted");
}
