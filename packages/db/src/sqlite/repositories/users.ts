import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { ApiKey, User } from "../../port/rows";
import { apiKeys, users } from "../../schema";
import type { Db } from "../client";

export function createUserRepository(db: Db) {
  // Read on every authenticated request: prepared once.
  const byKeyHash = db
    .select({ user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder("keyHash")), isNull(apiKeys.revokedAt)))
    .prepare();
  return {
    insert(user: User): User {
      db.insert(users).values(user).run();
      return user;
    },
    get(id: string): User | undefined {
      return db.select().from(users).where(eq(users.id, id)).get();
    },
    count(): number {
      return db.select({ n: count() }).from(users).get()?.n ?? 0;
    },
    insertApiKey(key: ApiKey): ApiKey {
      db.insert(apiKeys).values(key).run();
      return key;
    },
    /** A user's live (not revoked) keys, oldest first. */
    listLiveKeys(userId: string): ApiKey[] {
      return db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
        .orderBy(apiKeys.createdAt, apiKeys.id)
        .all();
    },
    /** Marks a key revoked (from `now` on). */
    revokeKey(keyId: string, now: number): void {
      db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId)).run();
    },
    /** Makes a revoked key live again (a fixed admin key from the environment); false if unknown. */
    reviveKeyByHash(keyHash: string): boolean {
      return (
        db.update(apiKeys).set({ revokedAt: null }).where(eq(apiKeys.keyHash, keyHash)).run()
          .changes > 0
      );
    },
    /** The owner of a live (not revoked) key, looked up by the key's hash. */
    findByKeyHash(keyHash: string): User | undefined {
      return byKeyHash.get({ keyHash })?.user;
    },
  };
}
