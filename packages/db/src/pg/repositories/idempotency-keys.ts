import { and, eq, lt } from "drizzle-orm";
import type { IdempotencyKeyRepository } from "../../port/repositories";
import type { SecretRows } from "../../secrets/secret-rows";
import type { PgExecutor } from "../client";
import { idempotencyKeys as keys } from "../schema";

/** Stored responses are always sealed (`secrets`). */
export function createIdempotencyKeyRepository(
  { run }: PgExecutor,
  secrets: SecretRows,
): IdempotencyKeyRepository {
  return {
    insert: (row) =>
      run(async (db) => {
        const body = row.responseBody;
        const sealed = body === null ? null : secrets.sealIdempotentResponse(row.id, body);
        await db.insert(keys).values({ ...row, responseBody: sealed });
        return row;
      }),
    get: (userId, key) =>
      run(async (db) => {
        const [row] = await db
          .select()
          .from(keys)
          .where(and(eq(keys.userId, userId), eq(keys.key, key)));
        return row && secrets.openIdempotencyRecord(row);
      }),
    complete: (id, responseStatus, responseBody) =>
      run(async (db) => {
        const result = await db
          .update(keys)
          .set({
            status: "completed",
            responseStatus,
            responseBody: secrets.sealIdempotentResponse(id, responseBody),
          })
          .where(eq(keys.id, id));
        return (result.rowCount ?? 0) > 0;
      }),
    remove: (id) =>
      run(async (db) => {
        await db.delete(keys).where(eq(keys.id, id));
      }),
    removeCreatedBefore: (before) =>
      run(async (db) => {
        const result = await db.delete(keys).where(lt(keys.createdAt, before));
        return result.rowCount ?? 0;
      }),
  };
}
