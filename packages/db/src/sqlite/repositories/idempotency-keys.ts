import { and, eq, lt } from "drizzle-orm";
import type { IdempotencyRecord } from "../../port/rows";
import { idempotencyKeys as keys } from "../../schema";
import type { Db } from "../client";

export function createIdempotencyKeyRepository(db: Db) {
  return {
    insert(row: IdempotencyRecord): IdempotencyRecord {
      db.insert(keys).values(row).run();
      return row;
    },
    get(userId: string, key: string): IdempotencyRecord | undefined {
      return db
        .select()
        .from(keys)
        .where(and(eq(keys.userId, userId), eq(keys.key, key)))
        .get();
    },
    complete(id: string, responseStatus: number, responseBody: string): boolean {
      const result = db
        .update(keys)
        .set({ status: "completed", responseStatus, responseBody })
        .where(eq(keys.id, id))
        .run();
      return result.changes > 0;
    },
    remove(id: string): void {
      db.delete(keys).where(eq(keys.id, id)).run();
    },
    removeCreatedBefore(before: number): number {
      return db.delete(keys).where(lt(keys.createdAt, before)).run().changes;
    },
  };
}
