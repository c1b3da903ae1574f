import type { ApiKey } from "@sandbox-server/db";
import { iso } from "../shared/time";

/** A key as its owner sees it: never the key or its hash, only what tells it apart. */
export function apiKeyOut(key: ApiKey, currentHash: string | null) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    created_at: iso(key.createdAt),
    current: key.keyHash === currentHash,
  };
}
