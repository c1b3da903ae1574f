import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { UserRepository } from "../../port/repositories";
import type { User } from "../../port/rows";
import type { PgExecutor } from "../client";
import { apiKeys, users } from "../schema";

export function createUserRepository({ run }: PgExecutor): UserRepository {
  return {
    insert: (user) =>
      run(async (db) => {
        await db.insert(users).values(user);
        return { ...user, disabledAt: null, deletedAt: null };
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db
          .select()
          .from(users)
          .where(and(eq(users.id, id), isNull(users.deletedAt)));
        return row;
      }),
    count: () =>
      run(async (db) => {
        const [row] = await db.select({ n: count() }).from(users).where(isNull(users.deletedAt));
        return row?.n ?? 0;
      }),
    list: () =>
      run((db) =>
        db.select().from(users).where(isNull(users.deletedAt)).orderBy(users.createdAt, users.id),
      ),
    setDisabled: (id, disabledAt) =>
      run(async (db) => {
        const result = await db
          .update(users)
          .set({ disabledAt })
          .where(and(eq(users.id, id), isNull(users.deletedAt)));
        return (result.rowCount ?? 0) > 0;
      }),
    restore: (id) =>
      run(async (db) => {
        const result = await db
          .update(users)
          .set({ disabledAt: null, deletedAt: null })
          .where(eq(users.id, id));
        return (result.rowCount ?? 0) > 0;
      }),
    markDeleted: (id, deletedAt) =>
      run(async (db) => {
        // One statement, so it is atomic outside a transaction too.
        await db.execute(sql`
          with gone as (delete from ${apiKeys} where ${apiKeys.userId} = ${id})
          update ${users} set deleted_at = ${deletedAt} where ${users.id} = ${id}`);
      }),
    insertApiKey: (key) =>
      run(async (db) => {
        await db.insert(apiKeys).values(key);
        return key;
      }),
    listLiveKeys: (userId) =>
      run((db) =>
        db
          .select()
          .from(apiKeys)
          .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
          .orderBy(apiKeys.createdAt, apiKeys.id),
      ),
    revokeKey: (keyId, now) =>
      run(async (db) => {
        await db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId));
      }),
    reviveKeyByHash: (keyHash) =>
      run(async (db) => {
        const result = await db
          .update(apiKeys)
          .set({ revokedAt: null })
          .where(eq(apiKeys.keyHash, keyHash));
        return (result.rowCount ?? 0) > 0;
      }),
    findByKeyHash: (keyHash) =>
      run(async (db): Promise<User | undefined> => {
        const [row] = await db
          .select({ user: users })
          .from(apiKeys)
          .innerJoin(users, eq(users.id, apiKeys.userId))
          .where(
            and(
              eq(apiKeys.keyHash, keyHash),
              isNull(apiKeys.revokedAt),
              isNull(users.disabledAt),
              isNull(users.deletedAt),
            ),
          );
        return row?.user;
      }),
  };
}
