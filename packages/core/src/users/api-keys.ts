import { createHash, randomBytes } from "node:crypto";
import type { ApiKey, User } from "@sandbox-server/db";
import type { CoreDeps } from "../deps";
import { AppError } from "../errors";
import { newId } from "../shared/ids";

const KEY_PREFIX = "ssk_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(24).toString("base64url");
}

/** How long a verified key is trusted without asking the database again. */
const KEY_CACHE_TTL_MS = 30_000;
const KEY_CACHE_MAX = 10_000;

/** Longer strings are not keys of ours: refused without hashing them. */
const MAX_KEY_LENGTH = 200;

/** The hash to look a presented key up by; null for something that cannot be a key. */
export function presentedKeyHash(key: string | null): string | null {
  return key && key.length <= MAX_KEY_LENGTH ? hashApiKey(key) : null;
}

export function findUserByApiKey(deps: CoreDeps, key: string): User | undefined {
  const hash = presentedKeyHash(key);
  return hash ? findUserByKeyHash(deps, hash) : undefined;
}

export function findUserByKeyHash(deps: CoreDeps, hash: string): User | undefined {
  const now = deps.now();
  const cached = deps.apiKeyCache.get(hash);
  if (cached && cached.expiresAt > now) return cached.user;
  const user = deps.repos.users.findByKeyHash(hash);
  // Only hits are cached: a wrong key always costs a lookup, so guessing cannot fill the cache.
  if (user) {
    if (deps.apiKeyCache.size >= KEY_CACHE_MAX) deps.apiKeyCache.clear();
    deps.apiKeyCache.set(hash, { user, expiresAt: now + KEY_CACHE_TTL_MS });
  }
  return user;
}

/** Stores the hash of `key` (a new random one unless given) for the user; returns the key. */
export function issueApiKey(deps: CoreDeps, userId: string, name: string, key = generateApiKey()) {
  return issueApiKeyRow(deps, userId, name, key).key;
}

/** Like `issueApiKey`, also returning the stored row (id, prefix, creation time). */
export function issueApiKeyRow(
  deps: CoreDeps,
  userId: string,
  name: string,
  key = generateApiKey(),
): { key: string; row: ApiKey } {
  const row = deps.repos.users.insertApiKey({
    id: newId("key"),
    userId,
    name,
    keyHash: hashApiKey(key),
    prefix: key.slice(0, KEY_PREFIX.length + 4),
    createdAt: deps.now(),
    revokedAt: null,
  });
  return { key, row };
}

/**
 * Revokes one of the user's live keys, effective at once (also for requests already holding it
 * in the verified-key cache). The user's last live key cannot be revoked: nobody could sign in
 * as that user again.
 */
export function revokeApiKey(deps: CoreDeps, userId: string, keyId: string): ApiKey {
  return deps.transaction(() => {
    const live = deps.repos.users.listLiveKeys(userId);
    const key = live.find((candidate) => candidate.id === keyId);
    if (!key) throw new AppError("API_KEY_NOT_FOUND", `API key ${keyId} was not found`);
    if (live.length === 1) {
      throw new AppError(
        "LAST_API_KEY",
        "This is the user's last API key; create another one before revoking it",
      );
    }
    const revokedAt = deps.now();
    deps.repos.users.revokeKey(key.id, revokedAt);
    deps.apiKeyCache.delete(key.keyHash);
    return { ...key, revokedAt };
  });
}
