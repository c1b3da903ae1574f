import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRepository } from "../port/repositories";
import type { SandboxRow } from "../port/rows";
import { countWhere, type Executor, selectById, selectPage } from "../query/query";

export function createSandboxRepository({ read, write }: Executor): SandboxRepository {
  return {
    insert: (row) =>
      write(async ({ db, t }) => {
        const full = completeSandbox(row);
        await db.insert(t.sandboxes).values(full);
        return full;
      }),
    // Read on every send-message: prepared once per connection, not rebuilt per call.
    get: (id) => read((q) => selectById(q, "sandboxes_by_id", (t) => t.sandboxes, id)),
    update: (id, patch) =>
      write(async ({ db, t }) => {
        const [row] = await db
          .update(t.sandboxes)
          .set(patch)
          .where(eq(t.sandboxes.id, id))
          .returning();
        return row;
      }),
    claim: (id, fromOwnerId, claim) =>
      write(async ({ db, t }) => {
        const s = t.sandboxes;
        const [row] = await db
          .update(s)
          .set({ ...claim, statusDetail: null, lastActivityAt: null })
          .where(and(eq(s.id, id), eq(s.ownerId, fromOwnerId), eq(s.status, "RUNNING")))
          .returning();
        return row;
      }),
    remove: (id) =>
      write(async ({ db, t }) => {
        await db.delete(t.sandboxes).where(eq(t.sandboxes.id, id));
      }),
    search: (filter, page) =>
      read(({ db, t, dialect }) => {
        const s = t.sandboxes;
        const matching = and(
          eq(s.ownerId, filter.ownerId),
          filter.status ? eq(s.status, filter.status) : undefined,
          filter.specId ? eq(s.specId, filter.specId) : undefined,
          filter.label ? dialect.hasLabel(s.labels, filter.label) : undefined,
        );
        const key = {
          sort: s.createdAt,
          direction: "desc",
          value: (r: SandboxRow) => r.createdAt,
        } as const;
        return selectPage(db, s, matching, key, page);
      }),
    listByStatus: (statuses) =>
      read(({ db, t }) =>
        db.select().from(t.sandboxes).where(inArray(t.sandboxes.status, statuses)),
      ),
    listAll: () => read(({ db, t }) => db.select().from(t.sandboxes)),
    // The lifetime sweep's query, every second: an index range on lifetime_due_at.
    listLifetimeDue: (now, limit) =>
      read((q) =>
        q
          .prepared("sandboxes_lifetime_due", ({ db, t }) =>
            db
              .select()
              .from(t.sandboxes)
              .where(lte(t.sandboxes.lifetimeDueAt, sql.placeholder("now")))
              .orderBy(asc(t.sandboxes.lifetimeDueAt))
              .limit(sql.placeholder("limit"))
              .prepare("sandboxes_lifetime_due"),
          )
          .all({ now, limit }),
      ),
    rescheduleLifetime: (id, expected, next) =>
      write(async ({ db, t }) => {
        if (expected.lifetimeDueAt === null) return false;
        const s = t.sandboxes;
        const rows = await db
          .update(s)
          .set({ lifetimeDueAt: next.lifetimeDueAt, lastActivityAt: next.lastActivityAt })
          .where(
            and(
              eq(s.id, id),
              eq(s.status, expected.status),
              eq(s.lifetimeDueAt, expected.lifetimeDueAt),
            ),
          )
          .returning({ id: s.id });
        return rows.length > 0;
      }),
    countByStatus: (statuses) =>
      read(({ db, t }) => countWhere(db, t.sandboxes, inArray(t.sandboxes.status, statuses))),
  };
}
