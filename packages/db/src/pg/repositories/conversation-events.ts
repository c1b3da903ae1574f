import { and, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import type { ConversationEventRepository } from "../../port/repositories";
import type { ConversationEventFilter } from "../../port/rows";
import type { PgExecutor } from "../client";
import { conversationEvents as events } from "../schema";

function matching(filter: ConversationEventFilter): SQL | undefined {
  return and(
    eq(events.conversationId, filter.conversationId),
    filter.kind ? eq(events.kind, filter.kind) : undefined,
    filter.fromUs === undefined ? undefined : gte(events.timestampUs, filter.fromUs),
    filter.beforeUs === undefined ? undefined : lt(events.timestampUs, filter.beforeUs),
  );
}

/** Rows per multi-row insert: a dozen parameters each, far below PostgreSQL's limit. */
const ROWS_PER_INSERT = 500;

export function createConversationEventRepository({
  run,
}: PgExecutor): ConversationEventRepository {
  return {
    insertIfNew: (row) =>
      run(async (db) => {
        const result = await db.insert(events).values(row).onConflictDoNothing();
        return (result.rowCount ?? 0) > 0;
      }),
    insertManyIfNew: (rows) =>
      run(async (db) => {
        const stored = new Set<string>();
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const inserted = await db
            .insert(events)
            .values(rows.slice(i, i + ROWS_PER_INSERT))
            .onConflictDoNothing()
            .returning({ id: events.id });
          for (const row of inserted) stored.add(row.id);
        }
        // A row is new when its id was stored by this call, and only its first row with that id.
        return rows.map((row) => stored.delete(row.id));
      }),
    latest: (conversationId) =>
      run(async (db) => {
        const [row] = await db
          .select()
          .from(events)
          .where(eq(events.conversationId, conversationId))
          .orderBy(desc(events.timestampUs), desc(events.id))
          .limit(1);
        return row;
      }),
    search: (filter, direction, page) =>
      run(async (db) => {
        const { where, orderBy } = keyset(events.timestampUs, events.id, direction, page.pageId);
        const rows = await db
          .select()
          .from(events)
          .where(and(matching(filter), where))
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return toPage(rows, page.limit, (r) => r.timestampUs);
      }),
    count: (filter) =>
      run(async (db) => {
        const [row] = await db.select({ n: count() }).from(events).where(matching(filter));
        return row?.n ?? 0;
      }),
    removeByConversation: (conversationId) =>
      run(async (db) => {
        await db.delete(events).where(eq(events.conversationId, conversationId));
      }),
  };
}
