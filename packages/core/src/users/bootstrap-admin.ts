import type { Repositories } from "@sandbox-server/db";
import { hashApiKey, issueApiKey } from "../auth/api-keys";
import type { CoreDeps } from "../deps";

/** The user behind the first admin key and ADMIN_API_KEY. */
const ADMIN_ID = "usr_admin";

/**
 * Makes sure an admin can sign in. With `fixedKey`, that key belongs to an admin. Otherwise,
 * on an empty database, a new admin key is generated and returned (once) for the caller to store.
 */
export async function bootstrapAdmin(
  deps: Pick<CoreDeps, "now" | "repos" | "transaction">,
  fixedKey?: string,
): Promise<{ generatedKey: string | null }> {
  return deps.transaction(async (tx) => {
    if (fixedKey) {
      const hash = hashApiKey(fixedKey);
      // The environment decides: the admin behind ADMIN_API_KEY is live again after a restart,
      // even if another admin disabled or deleted it meanwhile.
      await tx.users.restore(ADMIN_ID);
      // The environment decides: a fixed key revoked through the API works again after a restart.
      if (!(await tx.users.findByKeyHash(hash)) && !(await tx.users.reviveKeyByHash(hash))) {
        const admin = await ensureAdminUser(deps, tx);
        await issueApiKey(deps, admin, "ADMIN_API_KEY", fixedKey, tx);
      }
      return { generatedKey: null };
    }
    if ((await tx.users.count()) > 0) return { generatedKey: null };
    return {
      generatedKey: await issueApiKey(
        deps,
        await ensureAdminUser(deps, tx),
        "admin",
        undefined,
        tx,
      ),
    };
  });
}

async function ensureAdminUser(deps: Pick<CoreDeps, "now">, tx: Repositories): Promise<string> {
  const existing = await tx.users.get(ADMIN_ID);
  if (existing) return existing.id;
  await tx.users.insert({ id: ADMIN_ID, name: "admin", isAdmin: true, createdAt: deps.now() });
  return ADMIN_ID;
}
