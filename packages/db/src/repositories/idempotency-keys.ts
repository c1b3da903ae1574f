import { and, eq, lt } from "drizzle-orm";
import type { IdempotencyRecord } from "../port/rows";
import { type Executor, first } from "../query/query";

export type IdempotencyKeyRepository = ReturnType<typeof createIdempotencyKeyRepository>;

/**
 * `Idempotency-Key` records (one per user and key). Claiming is a check-then-insert: do it in a
 * transaction (`get`, maybe `remove`, `insert`).
 */
export function createIdempotencyKeyRepository({ read, write }: Executor) {
  return {
    /** Inserts an `in_progress` record; rejects when the (user, key) pair is taken. */
    insert: (row: IdempotencyRecord) =>
      write(async ({ db, t }) => {
        await db.insert(t.idempotencyKeys).values(row);
        return row;
      }),
    get: (userId: string, key: string) =>
      read(({ db, t }) => {
        const k = t.idempotencyKeys;
        return first(
          db
            .select()
            .from(k)
            .where(and(eq(k.userId, userId), eq(k.key, key))),
        );
      }),
    /** Stores the answer of a finished create; false when the record is gone. */
    complete: (id: string, responseStatus: number, responseBody: string) =>
      write(async ({ db, t }) => {
        const k = t.idempotencyKeys;
        const rows = await db
          .update(k)
          .set({ status: "completed", responseStatus, responseBody })
          .where(eq(k.id, id))
          .returning({ id: k.id });
        return rows.length > 0;
      }),
    remove: (id: string) =>
      write(async ({ db, t }) => {
        await db.delete(t.idempotencyKeys).where(eq(t.idempotencyKeys.id, id));
      }),
    /** Removes every record created before `before` (expired); how many. */
    removeCreatedBefore: (before: number) =>
      write(async ({ db, t }) => {
        const k = t.idempotencyKeys;
        const rows = await db.delete(k).where(lt(k.createdAt, before)).returning({ id: k.id });
        return rows.length;
      }),
  };
}
