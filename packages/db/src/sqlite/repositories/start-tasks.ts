import { and, count, eq, gte, inArray, type SQL } from "drizzle-orm";
import type { Page, PageRequest, SortDirection } from "../../paging";
import type { StartTaskFilter, StartTaskPatch, StartTaskRow, StartTaskSort } from "../../port/rows";
import { conversationStartTasks as tasks } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";

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
    listByStatus(statuses: string[]): StartTaskRow[] {
      if (statuses.length === 0) return [];
      return db.select().from(tasks).where(inArray(tasks.status, statuses)).all();
    },
    search(
      filter: StartTaskFilter,
      sort: StartTaskSort,
      direction: SortDirection,
      page: PageRequest,
    ): Page<StartTaskRow> {
      const sortColumn = sort === "created" ? tasks.createdAt : tasks.updatedAt;
      const value = (r: StartTaskRow) => (sort === "created" ? r.createdAt : r.updatedAt);
      const key = { sort: sortColumn, id: tasks.id, direction, value };
      return selectPage(db, tasks, matching(filter), key, page);
    },
    count(filter: StartTaskFilter): number {
      return db.select({ n: count() }).from(tasks).where(matching(filter)).get()?.n ?? 0;
    },
  };
}
