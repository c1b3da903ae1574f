import { and, eq, isNull, sql } from "drizzle-orm";
import type { ApiKey, NewUser, User } from "../port/rows";
import { countWhere, type Executor, first } from "../query/query";

export type UserRepository = ReturnType<typeof createUserRepository>;

export function createUserRepository({ read, write, atomic }: Executor) {
  return {
    insert: (user: NewUser): Promise<User> =>
      write(async ({ db, t }) => {
        await db.insert(t.users).values(user);
        return { ...user, disabledAt: null, deletedAt: null };
      }),
    /** A user that was not deleted (disabled users included). */
    get: (id: string) =>
      read(({ db, t }) =>
        first(
          db
            .select()
            .from(t.users)
            .where(and(eq(t.users.id, id), isNull(t.users.deletedAt))),
        ),
      ),
    /** Users that were not deleted. */
    count: () => read(({ db, t }) => countWhere(db, t.users, isNull(t.users.deletedAt))),
    /** Users that were not deleted, oldest first. */
    list: () =>
      read(({ db, t }) =>
        db
          .select()
          .from(t.users)
          .where(isNull(t.users.deletedAt))
          .orderBy(t.users.createdAt, t.users.id),
      ),
    /** Disables (a time) or enables (null) the user; false when there is no such live user. */
    setDisabled: (id: string, disabledAt: number | null) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.users)
          .set({ disabledAt })
          .where(and(eq(t.users.id, id), isNull(t.users.deletedAt)))
          .returning({ id: t.users.id });
        return rows.length > 0;
      }),
    /** Makes a disabled or deleted user live again; false when there is no such row. */
    restore: (id: string) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.users)
          .set({ disabledAt: null, deletedAt: null })
          .where(eq(t.users.id, id))
          .returning({ id: t.users.id });
        return rows.length > 0;
      }),
    /** Leaves a tombstone (the user's conversations keep their owner) and removes every key. */
    markDeleted: (id: string, deletedAt: number) =>
      atomic(async ({ db, t }) => {
        await db.delete(t.apiKeys).where(eq(t.apiKeys.userId, id));
        await db.update(t.users).set({ deletedAt }).where(eq(t.users.id, id));
      }),
    insertApiKey: (key: ApiKey) =>
      write(async ({ db, t }) => {
        await db.insert(t.apiKeys).values(key);
        return key;
      }),
    /** A user's live (not revoked) keys, oldest first. */
    listLiveKeys: (userId: string) =>
      read(({ db, t }) =>
        db
          .select()
          .from(t.apiKeys)
          .where(and(eq(t.apiKeys.userId, userId), isNull(t.apiKeys.revokedAt)))
          .orderBy(t.apiKeys.createdAt, t.apiKeys.id),
      ),
    /** Marks a key revoked (from `now` on). */
    revokeKey: (keyId: string, now: number) =>
      write(async ({ db, t }) => {
        await db.update(t.apiKeys).set({ revokedAt: now }).where(eq(t.apiKeys.id, keyId));
      }),
    /** Makes a revoked key live again (a fixed admin key from the environment); false if unknown. */
    reviveKeyByHash: (keyHash: string) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.apiKeys)
          .set({ revokedAt: null })
          .where(eq(t.apiKeys.keyHash, keyHash))
          .returning({ id: t.apiKeys.id });
        return rows.length > 0;
      }),
    /**
     * The owner of a live (not revoked) key, if that owner is neither disabled nor deleted. Read
     * on every authenticated request: prepared once per connection.
     */
    findByKeyHash: (keyHash: string) =>
      read(async (q) => {
        const byKeyHash = q.prepared("users_by_key_hash", ({ db, t }) =>
          db
            .select({ user: t.users })
            .from(t.apiKeys)
            .innerJoin(t.users, eq(t.users.id, t.apiKeys.userId))
            .where(
              and(
                eq(t.apiKeys.keyHash, sql.placeholder("keyHash")),
                isNull(t.apiKeys.revokedAt),
                isNull(t.users.disabledAt),
                isNull(t.users.deletedAt),
              ),
            )
            .prepare("users_by_key_hash"),
        );
        const row = await byKeyHash.first({ keyHash });
        return row?.user;
      }),
  };
}
