import { and, eq, lt } from "drizzle-orm";
import type { IdempotencyKeyRepository } from "../port/repositories";
import type { Executor } from "../query/query";

export function createIdempotencyKeyRepository({
  read,
  write,
}: Executor): IdempotencyKeyRepository {
  return {
    insert: (row) =>
      write(async ({ db, t }) => {
        await db.insert(t.idempotencyKeys).values(row);
        return row;
      }),
    get: (userId, key) =>
      read(async ({ db, t }) => {
        const k = t.idempotencyKeys;
        const [row] = await db
          .select()
          .from(k)
          .where(and(eq(k.userId, userId), eq(k.key, key)));
        return row;
      }),
    complete: (id, responseStatus, responseBody) =>
      write(async ({ db, t }) => {
        const k = t.idempotencyKeys;
        const rows = await db
          .update(k)
          .set({ status: "completed", responseStatus, responseBody })
          .where(eq(k.id, id))
          .returning({ id: k.id });
        return rows.length > 0;
      }),
    remove: (id) =>
      write(async ({ db, t }) => {
        await db.delete(t.idempotencyKeys).where(eq(t.idempotencyKeys.id, id));
      }),
    removeCreatedBefore: (before) =>
      write(async ({ db, t }) => {
        const k = t.idempotencyKeys;
        const rows = await db.delete(k).where(lt(k.createdAt, before)).returning({ id: k.id });
        return rows.length;
      }),
  };
}
