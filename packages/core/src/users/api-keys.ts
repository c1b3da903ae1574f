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

export function findUserByApiKey(deps: CoreDeps, key: string): User | undefined {
  if (key.length > 200) return undefined;
  return deps.repos.users.findByKeyHash(hashApiKey(key));
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
