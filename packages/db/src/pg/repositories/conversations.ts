import { and, count, eq, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import type { ConversationRepository } from "../../port/repositories";
import type {
  ConversationClientFields,
  ConversationFilter,
  ConversationRow,
} from "../../port/rows";
import type { PgExecutor } from "../client";
import { conversations } from "../schema";

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** What a conversation stored without the OpenHands fields has for them. */
const CLIENT_FIELD_DEFAULTS = {
  parentConversationId: null,
  public: null,
  selectedRepository: null,
  selectedBranch: null,
  gitProvider: null,
  trigger: null,
  llmModel: null,
  prNumber: [],
} satisfies Pick<ConversationRow, ConversationClientFields>;

function matching(filter: ConversationFilter): SQL | undefined {
  const c = conversations;
  const bound = (value: number | undefined, test: (v: number) => SQL) =>
    value === undefined ? undefined : test(value);
  return and(
    eq(c.ownerId, filter.ownerId),
    filter.sandboxId ? eq(c.sandboxId, filter.sandboxId) : undefined,
    filter.archived === undefined ? undefined : eq(c.archived, filter.archived),
    // ILIKE: SQLite's LIKE ignores ASCII case, and both adapters must answer alike.
    filter.titleContains
      ? sql`${c.title} ILIKE ${`%${escapeLike(filter.titleContains)}%`} ESCAPE '\\'`
      : undefined,
    bound(filter.createdFrom, (v) => gte(c.createdAt, v)),
    bound(filter.createdBefore, (v) => lt(c.createdAt, v)),
    bound(filter.updatedFrom, (v) => gte(c.updatedAt, v)),
    bound(filter.updatedBefore, (v) => lt(c.updatedAt, v)),
    filter.includeSubConversations === false ? isNull(c.parentConversationId) : undefined,
  );
}

/** Titles sort as text in byte order (as SQLite does), a conversation without one as ''. */
const titleKey = sql`(coalesce(${conversations.title}, '') collate "C")`;

export function createConversationRepository({ run }: PgExecutor): ConversationRepository {
  return {
    insert: (row) =>
      run(async (db) => {
        const full: ConversationRow = { ...CLIENT_FIELD_DEFAULTS, ...row };
        await db.insert(conversations).values(full);
        return full;
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(conversations).where(eq(conversations.id, id));
        return row;
      }),
    update: (id, patch) =>
      run(async (db) => {
        const [row] = await db
          .update(conversations)
          .set(patch)
          .where(eq(conversations.id, id))
          .returning();
        return row;
      }),
    recordEventActivity: (id, event) =>
      run(async (db) => {
        const c = conversations;
        await db
          .update(c)
          .set({
            lastEventAt: sql`greatest(coalesce(${c.lastEventAt}, 0), ${event.eventMs}::bigint)`,
            updatedAt: sql`greatest(${c.updatedAt}, ${event.eventMs}::bigint)`,
            executionStatus: sql`coalesce(${event.executionStatus}::text, ${c.executionStatus})`,
            title: sql`coalesce(${c.title}, ${event.title}::text)`,
          })
          .where(eq(c.id, id));
      }),
    recordEventActivities: (activities) =>
      run(async (db) => {
        if (activities.length === 0) return;
        const values = activities.map(
          ({ id, event }) =>
            sql`(cast(${id} as text), cast(${event.eventMs} as bigint),
              cast(${event.executionStatus} as text), cast(${event.title} as text))`,
        );
        // The same moves as recordEventActivity's, each conversation's from its values row.
        await db.execute(sql`
          update ${conversations} set
            last_event_at = greatest(coalesce(last_event_at, 0), v.column2),
            updated_at = greatest(updated_at, v.column2),
            execution_status = coalesce(v.column3, execution_status),
            title = coalesce(title, v.column4)
          from (values ${sql.join(values, sql`, `)}) as v
          where ${conversations}.id = v.column1`);
      }),
    remove: (id) =>
      run(async (db) => {
        await db.delete(conversations).where(eq(conversations.id, id));
      }),
    listBySandbox: (sandboxId) =>
      run((db) => db.select().from(conversations).where(eq(conversations.sandboxId, sandboxId))),
    archiveBySandbox: (sandboxId, now) =>
      run(async (db) => {
        await db
          .update(conversations)
          .set({ archived: true, updatedAt: now })
          .where(eq(conversations.sandboxId, sandboxId));
      }),
    search: (filter, sort, direction, page) =>
      run(async (db) => {
        const sortKey =
          sort === "title"
            ? titleKey
            : sort === "created"
              ? conversations.createdAt
              : conversations.updatedAt;
        const valueType = sort === "title" ? "string" : "number";
        const { where, orderBy } = keyset(
          sortKey,
          conversations.id,
          direction,
          page.pageId,
          valueType,
        );
        const rows = await db
          .select()
          .from(conversations)
          .where(and(matching(filter), where))
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return toPage(rows, page.limit, (r) =>
          sort === "title" ? (r.title ?? "") : sort === "created" ? r.createdAt : r.updatedAt,
        );
      }),
    count: (filter) =>
      run(async (db) => {
        const [row] = await db.select({ n: count() }).from(conversations).where(matching(filter));
        return row?.n ?? 0;
      }),
  };
}
