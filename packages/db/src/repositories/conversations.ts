import { and, eq, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { PageRequest, SortDirection } from "../paging";
import { CLIENT_FIELD_DEFAULTS } from "../port/row-defaults";
import type {
  ConversationFilter,
  ConversationPatch,
  ConversationRow,
  ConversationSort,
  EventActivity,
  NewConversation,
} from "../port/rows";
import {
  containing,
  countWhere,
  type Executor,
  first,
  type Query,
  selectById,
  selectPage,
} from "../query/query";

export type ConversationRepository = ReturnType<typeof createConversationRepository>;

function matching({ t, dialect }: Query, filter: ConversationFilter): SQL | undefined {
  const c = t.conversations;
  const bound = (value: number | undefined, test: (v: number) => SQL) =>
    value === undefined ? undefined : test(value);
  return and(
    eq(c.ownerId, filter.ownerId),
    filter.sandboxId ? eq(c.sandboxId, filter.sandboxId) : undefined,
    filter.archived === undefined ? undefined : eq(c.archived, filter.archived),
    // Case-insensitive on both dialects, so both answer alike.
    filter.titleContains
      ? sql`${c.title} ${dialect.likeIgnoringCase} ${containing(filter.titleContains)} ESCAPE '\\'`
      : undefined,
    bound(filter.createdFrom, (v) => gte(c.createdAt, v)),
    bound(filter.createdBefore, (v) => lt(c.createdAt, v)),
    bound(filter.updatedFrom, (v) => gte(c.updatedAt, v)),
    bound(filter.updatedBefore, (v) => lt(c.updatedAt, v)),
    filter.includeSubConversations === false ? isNull(c.parentConversationId) : undefined,
  );
}

export function createConversationRepository({ read, write }: Executor) {
  return {
    /** Stores the conversation; absent OpenHands fields are null (`prNumber` `[]`). */
    insert: (row: NewConversation) =>
      write(async ({ db, t }) => {
        const full: ConversationRow = { ...CLIENT_FIELD_DEFAULTS, ...row };
        await db.insert(t.conversations).values(full);
        return full;
      }),
    // Read on every send-message and stored event: prepared once per connection.
    get: (id: string) =>
      read((q) => selectById(q, "conversations_by_id", (t) => t.conversations, id)),
    update: (id: string, patch: ConversationPatch) =>
      write(({ db, t }) =>
        first(db.update(t.conversations).set(patch).where(eq(t.conversations.id, id)).returning()),
      ),
    /**
     * Moves the conversation's record by one stored event: activity times only forward, the
     * execution status when the event carries one, the title only when there is none yet. Once
     * per followed event: prepared, and computed in SQL so that no read comes first.
     */
    recordEventActivity: (id: string, event: EventActivity) =>
      write(async (q) => {
        const activity = q.prepared("conversations_event_activity", ({ db, t, dialect: d }) => {
          const c = t.conversations;
          const eventMs = d.typed(sql.placeholder("eventMs"), "bigint");
          return db
            .update(c)
            .set({
              lastEventAt: d.greatest(sql`coalesce(${c.lastEventAt}, 0)`, eventMs),
              updatedAt: d.greatest(c.updatedAt, eventMs),
              executionStatus: sql`coalesce(${d.typed(sql.placeholder("executionStatus"), "text")}, ${c.executionStatus})`,
              title: sql`coalesce(${c.title}, ${d.typed(sql.placeholder("title"), "text")})`,
            })
            .where(eq(c.id, sql.placeholder("id")))
            .prepare("conversations_event_activity");
        });
        await activity.all({ id, ...event });
      }),
    /**
     * `recordEventActivity` for several conversations at once (one statement), each
     * conversation's moves from its row of values.
     */
    recordEventActivities: (activities: { id: string; event: EventActivity }[]) =>
      write(async ({ db, t, dialect: d }) => {
        if (activities.length === 0) return;
        const values = activities.map(
          ({ id, event }) =>
            sql`(${d.typed(id, "text")}, ${d.typed(event.eventMs, "bigint")},
              ${d.typed(event.executionStatus, "text")}, ${d.typed(event.title, "text")})`,
        );
        await d.run(
          db,
          sql`update ${t.conversations} set
            last_event_at = ${d.greatest(sql`coalesce(last_event_at, 0)`, sql`v.column2`)},
            updated_at = ${d.greatest(sql`updated_at`, sql`v.column2`)},
            execution_status = coalesce(v.column3, execution_status),
            title = coalesce(title, v.column4)
          from (values ${sql.join(values, sql`, `)}) as v
          where ${t.conversations}.id = v.column1`,
        );
      }),
    remove: (id: string) =>
      write(async ({ db, t }) => {
        await db.delete(t.conversations).where(eq(t.conversations.id, id));
      }),
    listBySandbox: (sandboxId: string) =>
      read(({ db, t }) =>
        db.select().from(t.conversations).where(eq(t.conversations.sandboxId, sandboxId)),
      ),
    /** Marks every conversation of a sandbox archived (its sandbox no longer exists). */
    archiveBySandbox: (sandboxId: string, now: number) =>
      write(async ({ db, t }) => {
        await db
          .update(t.conversations)
          .set({ archived: true, updatedAt: now })
          .where(eq(t.conversations.sandboxId, sandboxId));
      }),
    search: (
      filter: ConversationFilter,
      sort: ConversationSort,
      direction: SortDirection,
      page: PageRequest,
    ) =>
      read((q) => {
        const c = q.t.conversations;
        const key =
          sort === "title"
            ? {
                // Titles sort as text, byte by byte; a conversation without one as ''.
                sort: q.dialect.bytewise(sql`coalesce(${c.title}, '')`),
                value: (r: ConversationRow) => r.title ?? "",
                valueType: "string" as const,
              }
            : { sort: sort === "created" ? c.createdAt : c.updatedAt };
        return selectPage(q.db, c, matching(q, filter), { ...key, direction }, page);
      }),
    count: (filter: ConversationFilter) =>
      read((q) => countWhere(q.db, q.t.conversations, matching(q, filter))),
  };
}
