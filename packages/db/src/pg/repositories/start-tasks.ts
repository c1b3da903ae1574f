import { and, count, eq, gte, inArray, type SQL } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import type { StartTaskRepository } from "../../port/repositories";
import type { StartTaskFilter } from "../../port/rows";
import type { PgExecutor } from "../client";
import { conversationStartTasks as tasks } from "../schema";

function matching(filter: StartTaskFilter): SQL | undefined {
  return and(
    eq(tasks.ownerId, filter.ownerId),
    filter.conversationId ? eq(tasks.appConversationId, filter.conversationId) : undefined,
    filter.createdFrom === undefined ? undefined : gte(tasks.createdAt, filter.createdFrom),
  );
}

export function createStartTaskRepository({ run }: PgExecutor): StartTaskRepository {
  return {
    insert: (row) =>
      run(async (db) => {
        await db.insert(tasks).values(row);
        return row;
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
        return row;
      }),
    update: (id, patch) =>
      run(async (db) => {
        const [row] = await db.update(tasks).set(patch).where(eq(tasks.id, id)).returning();
        return row;
      }),
    listByStatus: (statuses) =>
      run(async (db) => {
        if (statuses.length === 0) return [];
        return db.select().from(tasks).where(inArray(tasks.status, statuses));
      }),
    search: (filter, sort, direction, page) =>
      run(async (db) => {
        const sortColumn = sort === "created" ? tasks.createdAt : tasks.updatedAt;
        const { where, orderBy } = keyset(sortColumn, tasks.id, direction, page.pageId);
        const rows = await db
          .select()
          .from(tasks)
          .where(and(matching(filter), where))
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return toPage(rows, page.limit, (r) => (sort === "created" ? r.createdAt : r.updatedAt));
      }),
    count: (filter) =>
      run(async (db) => {
        const [row] = await db.select({ n: count() }).from(tasks).where(matching(filter));
        return row?.n ?? 0;
      }),
  };
}
