import { and, asc, count, eq, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { Page, PageRequest } from "../../paging";
import type { SandboxClaim, SandboxFilter, SandboxPatch, SandboxRow } from "../../port/rows";
import { sandboxes } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";

function labelCondition(label: string): SQL {
  const eqAt = label.indexOf("=");
  const key = eqAt === -1 ? label : label.slice(0, eqAt);
  const path = `$.${JSON.stringify(key)}`;
  if (eqAt === -1) return sql`json_type(${sandboxes.labels}, ${path}) IS NOT NULL`;
  return sql`json_extract(${sandboxes.labels}, ${path}) = ${label.slice(eqAt + 1)}`;
}

export function createSandboxRepository(db: Db) {
  // Read on every send-message: prepared once, not rebuilt per call.
  const byId = db
    .select()
    .from(sandboxes)
    .where(eq(sandboxes.id, sql.placeholder("id")))
    .prepare();
  // The lifetime sweep's query, every second: prepared once, an index range on lifetime_due_at.
  const lifetimeDue = db
    .select()
    .from(sandboxes)
    .where(lte(sandboxes.lifetimeDueAt, sql.placeholder("now")))
    .orderBy(asc(sandboxes.lifetimeDueAt))
    .limit(sql.placeholder("limit"))
    .prepare();
  const reschedule = db
    .update(sandboxes)
    .set({
      lifetimeDueAt: sql`${sql.placeholder("nextDue")}`,
      lastActivityAt: sql`${sql.placeholder("lastActivityAt")}`,
    })
    .where(
      and(
        eq(sandboxes.id, sql.placeholder("id")),
        eq(sandboxes.status, sql.placeholder("status")),
        eq(sandboxes.lifetimeDueAt, sql.placeholder("expectedDue")),
      ),
    )
    .prepare();
  return {
    insert(row: SandboxRow): SandboxRow {
      db.insert(sandboxes).values(row).run();
      return row;
    },
    get(id: string): SandboxRow | undefined {
      return byId.get({ id });
    },
    /** Applies `patch` and returns the updated row (undefined when the row is gone). */
    update(id: string, patch: SandboxPatch): SandboxRow | undefined {
      return db.update(sandboxes).set(patch).where(eq(sandboxes.id, id)).returning().get();
    },
    claim(id: string, fromOwnerId: string, claim: SandboxClaim): SandboxRow | undefined {
      return db
        .update(sandboxes)
        .set({ ...claim, statusDetail: null, lastActivityAt: null })
        .where(
          and(
            eq(sandboxes.id, id),
            eq(sandboxes.ownerId, fromOwnerId),
            eq(sandboxes.status, "RUNNING"),
          ),
        )
        .returning()
        .get();
    },
    remove(id: string): void {
      db.delete(sandboxes).where(eq(sandboxes.id, id)).run();
    },
    search(filter: SandboxFilter, page: PageRequest): Page<SandboxRow> {
      const matching = and(
        eq(sandboxes.ownerId, filter.ownerId),
        filter.status ? eq(sandboxes.status, filter.status) : undefined,
        filter.specId ? eq(sandboxes.specId, filter.specId) : undefined,
        filter.label ? labelCondition(filter.label) : undefined,
      );
      const key = {
        sort: sandboxes.createdAt,
        id: sandboxes.id,
        direction: "desc",
        value: (r: SandboxRow) => r.createdAt,
      } as const;
      return selectPage(db, sandboxes, matching, key, page);
    },
    listByStatus(statuses: string[]): SandboxRow[] {
      return db.select().from(sandboxes).where(inArray(sandboxes.status, statuses)).all();
    },
    listAll(): SandboxRow[] {
      return db.select().from(sandboxes).all();
    },
    listLifetimeDue(now: number, limit: number): SandboxRow[] {
      return lifetimeDue.all({ now, limit });
    },
    rescheduleLifetime(
      id: string,
      expected: Pick<SandboxRow, "status" | "lifetimeDueAt">,
      next: Pick<SandboxRow, "lifetimeDueAt" | "lastActivityAt">,
    ): boolean {
      if (expected.lifetimeDueAt === null) return false;
      const result = reschedule.run({
        id,
        status: expected.status,
        expectedDue: expected.lifetimeDueAt,
        nextDue: next.lifetimeDueAt,
        lastActivityAt: next.lastActivityAt,
      });
      return result.changes > 0;
    },
    countByStatus(statuses: string[]): number {
      return (
        db.select({ n: count() }).from(sandboxes).where(inArray(sandboxes.status, statuses)).get()
          ?.n ?? 0
      );
    },
  };
}
