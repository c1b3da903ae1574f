import { and, count, eq, gte, type SQL } from "drizzle-orm";
import { keyset, type Page, type PageRequest, type SortDirection, toPage } from "../../paging";
import type { StartTaskFilter, StartTaskPatch, StartTaskRow, StartTaskSort } from "../../port/rows";
import { conversationStartTasks as tasks } from "../../schema";
import type { Db } from "../client";

function matching(filter: StartTaskFilter): SQL | undefined {
  return and(
    eq(tasks.ownerId, filter.ownerId),
    filter.conversationId ? eq(tasks.appConversationId, filter.conversationId) : undefined,
    filter.createdFrom === undefined ? undefined : gte(tasks.createdAt, filter.createdFrom),
  );
}

export function createStartTaskRepository(db: Db) {
  return {
    insert(row: StartTaskRow): StartTaskRow {
      db.insert(tasks).values(row).run();
      return row;
    },
    get(id: string): StartTaskRow | undefined {
      return db.select().from(tasks).where(eq(tasks.id, id)).get();
    },
    update(id: string, patch: StartTaskPatch): StartTaskRow | undefined {
      return db.update(tasks).set(patch).where(eq(tasks.id, id)).returning().get();
    },
    search(
      filter: StartTaskFilter,
      sort: StartTaskSort,
      direction: SortDirection,
      page: PageRequest,
    ): Page<StartTaskRow> {
      const sortColumn = sort === "created" ? tasks.createdAt : tasks.updatedAt;
      const { where, orderBy } = keyset(sortColumn, tasks.id, direction, page.pageId);
      const rows = db
        .select()
        .from(tasks)
        .where(and(matching(filter), where))
        .orderBy(...orderBy)
        .limit(page.limit + 1)
        .all();
      return toPage(rows, page.limit, (r) => (sort === "created" ? r.createdAt : r.updatedAt));
    },
    count(filter: StartTaskFilter): number {
      return db.select({ n: count() }).from(tasks).where(matching(filter)).get()?.n ?? 0;
    },
  };
}
