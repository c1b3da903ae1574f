import { and, eq, isNull, sql } from "drizzle-orm";
import type { UserRepository } from "../port/repositories";
import { countWhere, type Executor } from "../query/query";

export function createUserRepository({ read, write, atomic }: Executor): UserRepository {
  return {
    insert: (user) =>
      write(async ({ db, t }) => {
        await db.insert(t.users).values(user);
        return { ...user, disabledAt: null, deletedAt: null };
      }),
    get: (id) =>
      read(async ({ db, t }) => {
        const [row] = await db
          .select()
          .from(t.users)
          .where(and(eq(t.users.id, id), isNull(t.users.deletedAt)));
        return row;
      }),
    count: () => read(({ db, t }) => countWhere(db, t.users, isNull(t.users.deletedAt))),
    list: () =>
      read(({ db, t }) =>
        db
          .select()
          .from(t.users)
          .where(isNull(t.users.deletedAt))
          .orderBy(t.users.createdAt, t.users.id),
      ),
    setDisabled: (id, disabledAt) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.users)
          .set({ disabledAt })
          .where(and(eq(t.users.id, id), isNull(t.users.deletedAt)))
          .returning({ id: t.users.id });
        return rows.length > 0;
      }),
    restore: (id) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.users)
          .set({ disabledAt: null, deletedAt: null })
          .where(eq(t.users.id, id))
          .returning({ id: t.users.id });
        return rows.length > 0;
      }),
    markDeleted: (id, deletedAt) =>
      atomic(async ({ db, t }) => {
        await db.delete(t.apiKeys).where(eq(t.apiKeys.userId, id));
        await db.update(t.users).set({ deletedAt }).where(eq(t.users.id, id));
      }),
    insertApiKey: (key) =>
      write(async ({ db, t }) => {
        await db.insert(t.apiKeys).values(key);
        return key;
      }),
    listLiveKeys: (userId) =>
      read(({ db, t }) =>
        db
          .select()
          .from(t.apiKeys)
          .where(and(eq(t.apiKeys.userId, userId), isNull(t.apiKeys.revokedAt)))
          .orderBy(t.apiKeys.createdAt, t.apiKeys.id),
      ),
    revokeKey: (keyId, now) =>
      write(async ({ db, t }) => {
        await db.update(t.apiKeys).set({ revokedAt: now }).where(eq(t.apiKeys.id, keyId));
      }),
    reviveKeyByHash: (keyHash) =>
      write(async ({ db, t }) => {
        const rows = await db
          .update(t.apiKeys)
          .set({ revokedAt: null })
          .where(eq(t.apiKeys.keyHash, keyHash))
          .returning({ id: t.apiKeys.id });
        return rows.length > 0;
      }),
    // Read on every authenticated request: prepared once per connection.
    findByKeyHash: (keyHash) =>
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
