import { and, eq, sql } from "drizzle-orm";
import { keyset, type Page, type PageRequest, type SortDirection, toPage } from "../../paging";
import type {
  ConversationFilter,
  ConversationPatch,
  ConversationRow,
  ConversationSort,
  EventActivity,
} from "../../port/rows";
import { conversations } from "../../schema";
import type { Db } from "../client";

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function createConversationRepository(db: Db) {
  // Read on every send-message and stored event: prepared once, not rebuilt per call.
  const byId = db
    .select()
    .from(conversations)
    .where(eq(conversations.id, sql.placeholder("id")))
    .prepare();
  // Run once per followed event: prepared, and computed in SQL so no read comes first.
  const eventMs = sql.placeholder("eventMs");
  const activity = db
    .update(conversations)
    .set({
      lastEventAt: sql`max(coalesce(${conversations.lastEventAt}, 0), ${eventMs})`,
      updatedAt: sql`max(${conversations.updatedAt}, ${eventMs})`,
      executionStatus: sql`coalesce(${sql.placeholder("executionStatus")}, ${conversations.executionStatus})`,
      title: sql`coalesce(${conversations.title}, ${sql.placeholder("title")})`,
    })
    .where(eq(conversations.id, sql.placeholder("id")))
    .prepare();
  return {
    insert(row: ConversationRow): ConversationRow {
      db.insert(conversations).values(row).run();
      return row;
    },
    get(id: string): ConversationRow | undefined {
      return byId.get({ id });
    },
    update(id: string, patch: ConversationPatch): ConversationRow | undefined {
      return db.update(conversations).set(patch).where(eq(conversations.id, id)).returning().get();
    },
    /**
     * Moves the conversation's record by one stored event: activity times only forward, the
     * execution status when the event carries one, the title only when there is none yet.
     */
    recordEventActivity(id: string, event: EventActivity): void {
      activity.run({ id, ...event });
    },
    remove(id: string): void {
      db.delete(conversations).where(eq(conversations.id, id)).run();
    },
    listBySandbox(sandboxId: string): ConversationRow[] {
      return db.select().from(conversations).where(eq(conversations.sandboxId, sandboxId)).all();
    },
    /** Marks every conversation of a sandbox archived (its sandbox no longer exists). */
    archiveBySandbox(sandboxId: string, now: number): void {
      db.update(conversations)
        .set({ archived: true, updatedAt: now })
        .where(eq(conversations.sandboxId, sandboxId))
        .run();
    },
    search(
      filter: ConversationFilter,
      sort: ConversationSort,
      direction: SortDirection,
      page: PageRequest,
    ): Page<ConversationRow> {
      const sortColumn = sort === "created" ? conversations.createdAt : conversations.updatedAt;
      const { where, orderBy } = keyset(sortColumn, conversations.id, direction, page.pageId);
      const rows = db
        .select()
        .from(conversations)
        .where(
          and(
            eq(conversations.ownerId, filter.ownerId),
            filter.sandboxId ? eq(conversations.sandboxId, filter.sandboxId) : undefined,
            filter.archived === undefined ? undefined : eq(conversations.archived, filter.archived),
            filter.titleContains
              ? sql`${conversations.title} LIKE ${`%${escapeLike(filter.titleContains)}%`} ESCAPE '\\'`
              : undefined,
            where,
          ),
        )
        .orderBy(...orderBy)
        .limit(page.limit + 1)
        .all();
      return toPage(rows, page.limit, (r) => (sort === "created" ? r.createdAt : r.updatedAt));
    },
  };
}
