import { and, count, eq, isNull } from "drizzle-orm";
import type { Db } from "../client";
import { apiKeys, users } from "../schema";

export type User = typeof users.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

export function createUserRepository(db: Db) {
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
    /** The owner of a live (not revoked) key, looked up by the key's hash. */
    findByKeyHash(keyHash: string): User | undefined {
      const row = db
        .select({ user: users })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
        .get();
      return row?.user;
    },
  };
}
export type UserRepository = ReturnType<typeof createUserRepository>;
