import { and, desc, eq, gte, lt, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { ConversationEventRepository } from "../port/repositories";
import type { ConversationEventFilter, ConversationEventRow } from "../port/rows";
import { countWhere, type Executor, type Query, selectPage } from "../query/query";

const COLUMNS = [
  "id",
  "conversationId",
  "ownerId",
  "timestamp",
  "timestampUs",
  "kind",
  "source",
  "body",
  "receivedAt",
] as const satisfies readonly (keyof ConversationEventRow)[];

function matching({ t }: Query, filter: ConversationEventFilter): SQL | undefined {
  const e = t.conversationEvents;
  return and(
    eq(e.conversationId, filter.conversationId),
    filter.kind ? eq(e.kind, filter.kind) : undefined,
    filter.fromUs === undefined ? undefined : gte(e.timestampUs, filter.fromUs),
    filter.beforeUs === undefined ? undefined : lt(e.timestampUs, filter.beforeUs),
  );
}

export function createConversationEventRepository({
  read,
  write,
}: Executor): ConversationEventRepository {
  return {
    // Every followed event goes through this insert: prepared once per connection.
    insertIfNew: (row) =>
      write(async (q) => {
        const insert = q.prepared("events_insert_if_new", ({ db, t }) => {
          const values = Object.fromEntries(COLUMNS.map((c) => [c, sql.placeholder(c)]));
          return db
            .insert(t.conversationEvents)
            .values(values as Record<(typeof COLUMNS)[number], Placeholder>)
            .onConflictDoNothing()
            .returning({ id: t.conversationEvents.id })
            .prepare("events_insert_if_new");
        });
        return (await insert.all(row)).length > 0;
      }),
    latest: (conversationId) =>
      read(async ({ db, t }) => {
        const e = t.conversationEvents;
        const [row] = await db
          .select()
          .from(e)
          .where(eq(e.conversationId, conversationId))
          .orderBy(desc(e.timestampUs), desc(e.id))
          .limit(1);
        return row;
      }),
    search: (filter, direction, page) =>
      read((q) => {
        const e = q.t.conversationEvents;
        const key = {
          sort: e.timestampUs,
          direction,
          value: (r: ConversationEventRow) => r.timestampUs,
        };
        return selectPage(q.db, e, matching(q, filter), key, page);
      }),
    count: (filter) => read((q) => countWhere(q.db, q.t.conversationEvents, matching(q, filter))),
    removeByConversation: (conversationId) =>
      write(async ({ db, t }) => {
        const e = t.conversationEvents;
        await db.delete(e).where(eq(e.conversationId, conversationId));
      }),
  };
}
