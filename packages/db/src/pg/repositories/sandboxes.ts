import { and, asc, count, eq, inArray, lte, type SQL, sql } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import { completeSandbox } from "../../port/new-sandbox";
import type { SandboxRepository } from "../../port/repositories";
import type { SecretRows } from "../../secrets/secret-rows";
import type { PgExecutor } from "../client";
import { sandboxes } from "../schema";

/** `key` (the label is present) or `key=value`. */
function labelCondition(label: string): SQL {
  const eqAt = label.indexOf("=");
  if (eqAt === -1) return sql`jsonb_exists(${sandboxes.labels}, ${label})`;
  return sql`(${sandboxes.labels} ->> ${label.slice(0, eqAt)}::text) = ${label.slice(eqAt + 1)}`;
}

/** Session keys are sealed on the way in and opened on the way out (`secrets`). */
export function createSandboxRepository(
  { run }: PgExecutor,
  secrets: SecretRows,
): SandboxRepository {
  return {
    insert: (row) =>
      run(async (db) => {
        const full = completeSandbox(row);
        await db.insert(sandboxes).values(secrets.sealSandbox(full));
        return full;
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(sandboxes).where(eq(sandboxes.id, id));
        return row && secrets.openSandbox(row);
      }),
    update: (id, patch) =>
      run(async (db) => {
        const [row] = await db
          .update(sandboxes)
          .set(secrets.sealSandboxPatch(id, patch))
          .where(eq(sandboxes.id, id))
          .returning();
        return row && secrets.openSandbox(row);
      }),
    claim: (id, fromOwnerId, claim) =>
      run(async (db) => {
        const [row] = await db
          .update(sandboxes)
          .set({
            ...claim,
            ...secrets.sealSandboxPatch(id, { sessionApiKey: claim.sessionApiKey }),
            statusDetail: null,
            lastActivityAt: null,
          })
          .where(
            and(
              eq(sandboxes.id, id),
              eq(sandboxes.ownerId, fromOwnerId),
              eq(sandboxes.status, "RUNNING"),
            ),
          )
          .returning();
        return row && secrets.openSandbox(row);
      }),
    remove: (id) =>
      run(async (db) => {
        await db.delete(sandboxes).where(eq(sandboxes.id, id));
      }),
    search: (filter, page) =>
      run(async (db) => {
        const { where, orderBy } = keyset(sandboxes.createdAt, sandboxes.id, "desc", page.pageId);
        const rows = await db
          .select()
          .from(sandboxes)
          .where(
            and(
              eq(sandboxes.ownerId, filter.ownerId),
              filter.status ? eq(sandboxes.status, filter.status) : undefined,
              filter.specId ? eq(sandboxes.specId, filter.specId) : undefined,
              filter.label ? labelCondition(filter.label) : undefined,
              where,
            ),
          )
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return secrets.openSandboxPage(toPage(rows, page.limit, (r) => r.createdAt));
      }),
    listByStatus: (statuses) =>
      run(async (db) =>
        secrets.openSandboxes(
          await db.select().from(sandboxes).where(inArray(sandboxes.status, statuses)),
        ),
      ),
    listAll: () => run(async (db) => secrets.openSandboxes(await db.select().from(sandboxes))),
    listLifetimeDue: (now, limit) =>
      run(async (db) =>
        secrets.openSandboxes(
          await db
            .select()
            .from(sandboxes)
            .where(lte(sandboxes.lifetimeDueAt, now))
            .orderBy(asc(sandboxes.lifetimeDueAt))
            .limit(limit),
        ),
      ),
    rescheduleLifetime: (id, expected, next) =>
      run(async (db) => {
        if (expected.lifetimeDueAt === null) return false;
        const rows = await db
          .update(sandboxes)
          .set({ lifetimeDueAt: next.lifetimeDueAt, lastActivityAt: next.lastActivityAt })
          .where(
            and(
              eq(sandboxes.id, id),
              eq(sandboxes.status, expected.status),
              eq(sandboxes.lifetimeDueAt, expected.lifetimeDueAt),
            ),
          )
          .returning({ id: sandboxes.id });
        return rows.length > 0;
      }),
    countByStatus: (statuses) =>
      run(async (db) => {
        const [row] = await db
          .select({ n: count() })
          .from(sandboxes)
          .where(inArray(sandboxes.status, statuses));
        return row?.n ?? 0;
      }),
  };
}
