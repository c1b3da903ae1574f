import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { PageRequest } from "../paging";
import { completeSandbox } from "../port/new-sandbox";
import type {
  NewSandbox,
  SandboxClaim,
  SandboxFilter,
  SandboxPatch,
  SandboxRow,
} from "../port/rows";
import { countWhere, type Executor, first, selectById, selectPage } from "../query/query";

export type SandboxRepository = ReturnType<typeof createSandboxRepository>;

export function createSandboxRepository({ read, write }: Executor) {
  return {
    /** Stores the sandbox; absent lifetime columns take their defaults (`NO_LIFETIME`). */
    insert: (row: NewSandbox) =>
      write(async ({ db, t }) => {
        const full = completeSandbox(row);
        await db.insert(t.sandboxes).values(full);
        return full;
      }),
    // Read on every send-message: prepared once per connection, not rebuilt per call.
    get: (id: string) => read((q) => selectById(q, "sandboxes_by_id", (t) => t.sandboxes, id)),
    /** Applies `patch` and returns the updated row (undefined when the row is gone). */
    update: (id: string, patch: SandboxPatch) =>
      write(({ db, t }) =>
        first(db.update(t.sandboxes).set(patch).where(eq(t.sandboxes.id, id)).returning()),
      ),
    remove: (id: string) =>
      write(async ({ db, t }) => {
        await db.delete(t.sandboxes).where(eq(t.sandboxes.id, id));
      }),
    /**
     * Hands a RUNNING sandbox of `fromOwnerId` (the warm pool) to `claim.ownerId`; undefined when
     * it is no longer RUNNING or no longer that owner's (someone else claimed it first).
     */
    claim: (id: string, fromOwnerId: string, claim: SandboxClaim) =>
      write(({ db, t }) => {
        const s = t.sandboxes;
        return first(
          db
            .update(s)
            .set({ ...claim, statusDetail: null, lastActivityAt: null })
            .where(and(eq(s.id, id), eq(s.ownerId, fromOwnerId), eq(s.status, "RUNNING")))
            .returning(),
        );
      }),
    /** The owner's sandboxes, newest first. */
    search: (filter: SandboxFilter, page: PageRequest) =>
      read(({ db, t, dialect }) => {
        const s = t.sandboxes;
        const matching = and(
          eq(s.ownerId, filter.ownerId),
          filter.status ? eq(s.status, filter.status) : undefined,
          filter.specId ? eq(s.specId, filter.specId) : undefined,
          filter.label ? dialect.hasLabel(s.labels, filter.label) : undefined,
        );
        return selectPage(db, s, matching, { sort: s.createdAt, direction: "desc" }, page);
      }),
    /**
     * The RUNNING sandboxes of `ownerId` with spec `specId`, oldest first, at most `limit`: a
     * warm-pool claim's candidates. On every warm create's path: prepared once per connection.
     */
    listRunning: (ownerId: string, specId: string, limit: number) =>
      read((q) =>
        q
          .prepared("sandboxes_running_of_spec", ({ db, t }) =>
            db
              .select()
              .from(t.sandboxes)
              .where(
                and(
                  eq(t.sandboxes.ownerId, sql.placeholder("ownerId")),
                  eq(t.sandboxes.status, "RUNNING"),
                  eq(t.sandboxes.specId, sql.placeholder("specId")),
                ),
              )
              .orderBy(asc(t.sandboxes.createdAt), asc(t.sandboxes.id))
              .limit(sql.placeholder("limit"))
              .prepare("sandboxes_running_of_spec"),
          )
          .all({ ownerId, specId, limit }),
      ),
    listByStatus: (statuses: string[]) =>
      read(({ db, t }) =>
        db.select().from(t.sandboxes).where(inArray(t.sandboxes.status, statuses)),
      ),
    listAll: () => read(({ db, t }) => db.select().from(t.sandboxes)),
    countByStatus: (statuses: string[]) =>
      read(({ db, t }) => countWhere(db, t.sandboxes, inArray(t.sandboxes.status, statuses))),
    /**
     * Sandboxes whose lifetime is due (`lifetimeDueAt <= now`), earliest first, at most `limit`:
     * an index range on lifetime_due_at, so its cost follows the rows due, not the rows stored.
     * The lifetime sweep's query, every second: prepared once per connection.
     */
    listLifetimeDue: (now: number, limit: number) =>
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
    /**
     * Moves a sandbox's lifetime due time (and the activity it was computed from) only if its status
     * and due time are still `expected` (nothing moved it meanwhile); false when they were not.
     */
    rescheduleLifetime: (
      id: string,
      expected: Pick<SandboxRow, "status" | "lifetimeDueAt">,
      next: Pick<SandboxRow, "lifetimeDueAt" | "lastActivityAt">,
    ) =>
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
  };
}
