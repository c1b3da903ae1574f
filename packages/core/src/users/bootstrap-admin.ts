import type { CoreDeps } from "../deps";
import { findUserByApiKey, hashApiKey, issueApiKey } from "./api-keys";

/**
 * Makes sure an admin can sign in. With `fixedKey`, that key belongs to an admin. Otherwise,
 * on an empty database, a new admin key is generated and returned (once) for the caller to store.
 */
export function bootstrapAdmin(deps: CoreDeps, fixedKey?: string): { generatedKey: string | null } {
  if (fixedKey) {
    // The environment decides: a fixed key revoked through the API works again after a restart.
    if (
      !findUserByApiKey(deps, fixedKey) &&
      !deps.repos.users.reviveKeyByHash(hashApiKey(fixedKey))
    ) {
      const admin = ensureAdminUser(deps);
      issueApiKey(deps, admin, "ADMIN_API_KEY", fixedKey);
    }
    return { generatedKey: null };
  }
  if (deps.repos.users.count() > 0) return { generatedKey: null };
  return { generatedKey: issueApiKey(deps, ensureAdminUser(deps), "admin") };
}

function ensureAdminUser(deps: CoreDeps): string {
  const existing = deps.repos.users.get("usr_admin");
  if (existing) return existing.id;
  deps.repos.users.insert({ id: "usr_admin", name: "admin", isAdmin: true, createdAt: deps.now() });
  return "usr_admin";
}
