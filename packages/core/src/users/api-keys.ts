import { createHash, randomBytes } from "node:crypto";
import type { User } from "@sandbox-server/db";
import type { CoreDeps } from "../deps";
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

export function findUserByApiKey(deps: CoreDeps, key: string): User | undefined {
  if (key.length > 200) return undefined;
  const hash = hashApiKey(key);
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
  deps.repos.users.insertApiKey({
    id: newId("key"),
    userId,
    name,
    keyHash: hashApiKey(key),
    prefix: key.slice(0, KEY_PREFIX.length + 4),
    createdAt: deps.now(),
    revokedAt: null,
  });
  return key;
}
