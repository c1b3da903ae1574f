import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { PageRequest, SortDirection } from "../paging";
import type { ConversationEventFilter, ConversationEventRow } from "../port/rows";
import {
  countWhere,
  type Executor,
  first,
  placeholders,
  type Query,
  selectPage,
} from "../query/query";

export type ConversationEventRepository = ReturnType<typeof createConversationEventRepository>;

function matching({ t }: Query, filter: ConversationEventFilter): SQL | undefined {
  const e = t.conversationEvents;
  return and(
    eq(e.conversationId, filter.conversationId),
    filter.kind ? eq(e.kind, filter.kind) : undefined,
    filter.fromUs === undefined ? undefined : gte(e.timestampUs, filter.fromUs),
    filter.beforeUs === undefined ? undefined : lt(e.timestampUs, filter.beforeUs),
  );
}

/** Every followed event goes through this insert: prepared once per connection. */
async function insertIfNew(q: Query, row: ConversationEventRow): Promise<boolean> {
  const insert = q.prepared("events_insert_if_new", ({ db, t }) =>
    db
      .insert(t.conversationEvents)
      .values(placeholders(t.conversationEvents))
      .onConflictDoNothing()
      .returning({ id: t.conversationEvents.id })
      .prepare("events_insert_if_new"),
  );
  return (await insert.all(row)).length > 0;
}

export function createConversationEventRepository({ read, write }: Executor) {
  return {
    /** Stores an event unless one with its id is already stored; true when it was new. */
    insertIfNew: (row: ConversationEventRow) => write((q) => insertIfNew(q, row)),
    /**
     * `insertIfNew` for many events at once (one statement per few hundred on PostgreSQL): per row,
     * whether it was new (of two rows with one id, the first).
     */
    insertManyIfNew: (rows: ConversationEventRow[]) =>
      write(async (q) => {
        const { db, t, dialect } = q;
        const news: boolean[] = [];
        if (dialect.rowsPerInsert === 1) {
          for (const row of rows) news.push(await insertIfNew(q, row));
          return news;
        }
        const stored = new Set<string>();
        for (let i = 0; i < rows.length; i += dialect.rowsPerInsert) {
          const inserted = await db
            .insert(t.conversationEvents)
            .values(rows.slice(i, i + dialect.rowsPerInsert))
            .onConflictDoNothing()
            .returning({ id: t.conversationEvents.id });
          for (const row of inserted) stored.add(row.id);
        }
        // A row is new when its id was stored by this call, and only its first row with that id.
        return rows.map((row) => stored.delete(row.id));
      }),
    /** The conversation's newest stored event: where a resumed follower picks up. */
    latest: (conversationId: string) =>
      read(({ db, t }) => {
        const e = t.conversationEvents;
        return first(
          db
            .select()
            .from(e)
            .where(eq(e.conversationId, conversationId))
            .orderBy(desc(e.timestampUs), desc(e.id))
            .limit(1),
        );
      }),
    search: (filter: ConversationEventFilter, direction: SortDirection, page: PageRequest) =>
      read((q) => {
        const e = q.t.conversationEvents;
        const key = { sort: e.timestampUs, direction };
        return selectPage(q.db, e, matching(q, filter), key, page);
      }),
    count: (filter: ConversationEventFilter) =>
      read((q) => countWhere(q.db, q.t.conversationEvents, matching(q, filter))),
    /** Drops a conversation's stored events (the conversation was deleted). */
    removeByConversation: (conversationId: string) =>
      write(async ({ db, t }) => {
        const e = t.conversationEvents;
        await db.delete(e).where(eq(e.conversationId, conversationId));
      }),
  };
}
