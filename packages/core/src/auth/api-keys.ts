import { hash, randomBytes } from "node:crypto";
import type { ApiKey, Repositories, User } from "@sandbox-server/db";
import type { CoreDeps } from "../deps";
import { AppError } from "../errors";
import { newId } from "../shared/ids";
import { RememberedReads } from "../shared/remembered-reads";
import { forgetKeys } from "./key-notices";

const KEY_PREFIX = "ssk_";

/** One-shot `crypto.hash` (every authenticated request hashes its key): no Hash object per call. */
export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
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

/** The verified-key cache of a core (`deps.apiKeyCache`), by key hash. */
export function createApiKeyCache(now: () => number): RememberedReads<User> {
  return new RememberedReads<User>({ ttlMs: KEY_CACHE_TTL_MS, now, max: KEY_CACHE_MAX });
}

export async function findUserByKeyHash(
  deps: Pick<CoreDeps, "apiKeyCache" | "repos">,
  hash: string,
): Promise<User | undefined> {
  // Only hits are cached: a wrong key always costs a lookup, so guessing cannot fill the cache.
  // A key revoked while it was being looked up is not cached (the lookup may predate the revoke).
  return (
    deps.apiKeyCache.get(hash) ??
    deps.apiKeyCache.read(
      hash,
      () => deps.repos.users.findByKeyHash(hash),
      () => true,
    )
  );
}

/** Stores the hash of `key` (a new random one unless given) for the user; returns the key. */
export async function issueApiKey(
  deps: Pick<CoreDeps, "now" | "repos">,
  userId: string,
  name: string,
  key = generateApiKey(),
  repos: Repositories = deps.repos,
): Promise<string> {
  return (await issueApiKeyRow(deps, userId, name, key, repos)).key;
}

/**
 * Like `issueApiKey`, also returning the stored row (id, prefix, creation time). `repos` is a
 * transaction's when the key is part of one.
 */
export async function issueApiKeyRow(
  deps: Pick<CoreDeps, "now" | "repos">,
  userId: string,
  name: string,
  key = generateApiKey(),
  repos: Repositories = deps.repos,
): Promise<{ key: string; row: ApiKey }> {
  const row = await repos.users.insertApiKey({
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

/** Drops every cached key of the user on every replica, effective at once (disable, delete). */
export function forgetUserKeys(
  deps: Pick<CoreDeps, "apiKeyCache" | "log" | "notices">,
  userId: string,
): Promise<void> {
  return forgetKeys(deps, { userId });
}

/**
 * Revokes one of the user's live keys, effective at once (also for requests already holding it
 * in the verified-key cache). The user's last live key cannot be revoked: nobody could sign in
 * as that user again.
 */
export async function revokeApiKey(
  deps: Pick<CoreDeps, "apiKeyCache" | "log" | "notices" | "now" | "transaction">,
  userId: string,
  keyId: string,
): Promise<ApiKey> {
  const revoked = await deps.transaction(async (tx) => {
    const live = await tx.users.listLiveKeys(userId);
    const key = live.find((candidate) => candidate.id === keyId);
    if (!key) throw new AppError("API_KEY_NOT_FOUND", `API key ${keyId} was not found`);
    if (live.length === 1) {
      throw new AppError(
        "LAST_API_KEY",
        "This is the user's last API key; create another one before revoking it",
      );
    }
    const revokedAt = deps.now();
    await tx.users.revokeKey(key.id, revokedAt);
    return { ...key, revokedAt };
  });
  // After the commit, and so that a lookup that read the key before the commit cannot cache it.
  await forgetKeys(deps, { keyHash: revoked.keyHash });
  return revoked;
}
