import { and, count, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { Page, PageRequest, SortDirection } from "../../paging";
import type { ConversationEventFilter, ConversationEventRow } from "../../port/rows";
import { conversationEvents } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";
import { placeholders } from "./placeholders";

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

function matching(filter: ConversationEventFilter): SQL | undefined {
  const e = conversationEvents;
  return and(
    eq(e.conversationId, filter.conversationId),
    filter.kind ? eq(e.kind, filter.kind) : undefined,
    filter.fromUs === undefined ? undefined : gte(e.timestampUs, filter.fromUs),
    filter.beforeUs === undefined ? undefined : lt(e.timestampUs, filter.beforeUs),
  );
}

export function createConversationEventRepository(db: Db) {
  // Every followed event goes through this insert: prepared once, not rebuilt per event.
  const insertIfNew = db
    .insert(conversationEvents)
    .values(placeholders(COLUMNS))
    .onConflictDoNothing()
    .prepare();
  return {
    /** Stores an event unless one with its id is already stored; true when it was new. */
    insertIfNew(row: ConversationEventRow): boolean {
      return insertIfNew.run(row).changes > 0;
    },
    /** The conversation's newest stored event: where a resumed follower picks up. */
    latest(conversationId: string): ConversationEventRow | undefined {
      return db
        .select()
        .from(conversationEvents)
        .where(eq(conversationEvents.conversationId, conversationId))
        .orderBy(desc(conversationEvents.timestampUs), desc(conversationEvents.id))
        .limit(1)
        .get();
    },
    search(
      filter: ConversationEventFilter,
      direction: SortDirection,
      page: PageRequest,
    ): Page<ConversationEventRow> {
      const key = {
        sort: conversationEvents.timestampUs,
        id: conversationEvents.id,
        direction,
        value: (r: ConversationEventRow) => r.timestampUs,
      };
      return selectPage(db, conversationEvents, matching(filter), key, page);
    },
    count(filter: ConversationEventFilter): number {
      return (
        db.select({ n: count() }).from(conversationEvents).where(matching(filter)).get()?.n ?? 0
      );
    },
    /** Drops a conversation's stored events (the conversation was deleted). */
    removeByConversation(conversationId: string): void {
      db.delete(conversationEvents)
        .where(eq(conversationEvents.conversationId, conversationId))
        .run();
    },
  };
}
