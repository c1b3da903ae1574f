import { and, count, eq, gte, isNull, lt, type SQL, sql } from "drizzle-orm";
import type { Page, PageRequest, SortDirection } from "../../paging";
import type {
  ConversationClientFields,
  ConversationFilter,
  ConversationPatch,
  ConversationRow,
  ConversationSort,
  EventActivity,
  NewConversation,
} from "../../port/rows";
import { conversations } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";

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
    filter.titleContains
      ? sql`${c.title} LIKE ${`%${escapeLike(filter.titleContains)}%`} ESCAPE '\\'`
      : undefined,
    bound(filter.createdFrom, (v) => gte(c.createdAt, v)),
    bound(filter.createdBefore, (v) => lt(c.createdAt, v)),
    bound(filter.updatedFrom, (v) => gte(c.updatedAt, v)),
    bound(filter.updatedBefore, (v) => lt(c.updatedAt, v)),
    filter.includeSubConversations === false ? isNull(c.parentConversationId) : undefined,
  );
}

/** Titles sort as text, a conversation without one as the empty title. */
const titleKey = sql`coalesce(${conversations.title}, '')`;

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
    insert(row: NewConversation): ConversationRow {
      const full: ConversationRow = { ...CLIENT_FIELD_DEFAULTS, ...row };
      db.insert(conversations).values(full).run();
      return full;
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
      const sortKey =
        sort === "title"
          ? titleKey
          : sort === "created"
            ? conversations.createdAt
            : conversations.updatedAt;
      const valueType = sort === "title" ? "string" : "number";
      const value = (r: ConversationRow) =>
        sort === "title" ? (r.title ?? "") : sort === "created" ? r.createdAt : r.updatedAt;
      const key = { sort: sortKey, id: conversations.id, direction, value, valueType } as const;
      return selectPage(db, conversations, matching(filter), key, page);
    },
    count(filter: ConversationFilter): number {
      return db.select({ n: count() }).from(conversations).where(matching(filter)).get()?.n ?? 0;
    },
  };
}
