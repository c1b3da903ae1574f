import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { ApiKey, NewUser, User } from "../../port/rows";
import { apiKeys, users } from "../../schema";
import type { Db } from "../client";

export function createUserRepository(db: Db) {
  // Read on every authenticated request: prepared once.
  const byKeyHash = db
    .select({ user: users })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(
      and(
        eq(apiKeys.keyHash, sql.placeholder("keyHash")),
        isNull(apiKeys.revokedAt),
        isNull(users.disabledAt),
        isNull(users.deletedAt),
      ),
    )
    .prepare();
  return {
    insert(user: NewUser): User {
      db.insert(users).values(user).run();
      return { ...user, disabledAt: null, deletedAt: null };
    },
    /** A user that was not deleted (disabled users included). */
    get(id: string): User | undefined {
      return db
        .select()
        .from(users)
        .where(and(eq(users.id, id), isNull(users.deletedAt)))
        .get();
    },
    /** Users that were not deleted. */
    count(): number {
      return db.select({ n: count() }).from(users).where(isNull(users.deletedAt)).get()?.n ?? 0;
    },
    /** Users that were not deleted, oldest first. */
    list(): User[] {
      return db
        .select()
        .from(users)
        .where(isNull(users.deletedAt))
        .orderBy(users.createdAt, users.id)
        .all();
    },
    /** Disables (a time) or enables (null) the user; false when there is no such live user. */
    setDisabled(id: string, disabledAt: number | null): boolean {
      return (
        db
          .update(users)
          .set({ disabledAt })
          .where(and(eq(users.id, id), isNull(users.deletedAt)))
          .run().changes > 0
      );
    },
    /** Makes a disabled or deleted user live again; false when there is no such row. */
    restore(id: string): boolean {
      return (
        db.update(users).set({ disabledAt: null, deletedAt: null }).where(eq(users.id, id)).run()
          .changes > 0
      );
    },
    /** Leaves a tombstone and removes every key of the user. */
    markDeleted(id: string, deletedAt: number): void {
      db.delete(apiKeys).where(eq(apiKeys.userId, id)).run();
      db.update(users).set({ deletedAt }).where(eq(users.id, id)).run();
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
