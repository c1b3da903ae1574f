import { and, eq, gte, inArray, type SQL } from "drizzle-orm";
import type { PageRequest, SortDirection } from "../paging";
import type { StartTaskFilter, StartTaskPatch, StartTaskRow, StartTaskSort } from "../port/rows";
import {
  countWhere,
  type Executor,
  first,
  placeholders,
  type Query,
  selectById,
  selectPage,
} from "../query/query";

export type StartTaskRepository = ReturnType<typeof createStartTaskRepository>;

function matching({ t }: Query, filter: StartTaskFilter): SQL | undefined {
  const tasks = t.conversationStartTasks;
  return and(
    eq(tasks.ownerId, filter.ownerId),
    filter.conversationId ? eq(tasks.appConversationId, filter.conversationId) : undefined,
    filter.createdFrom === undefined ? undefined : gte(tasks.createdAt, filter.createdFrom),
  );
}

export function createStartTaskRepository({ read, write }: Executor) {
  return {
    // Every conversation create stores one: prepared once per connection.
    insert: (row: StartTaskRow) =>
      write(async (q) => {
        const insert = q.prepared("start_tasks_insert", ({ db, t }) =>
          db
            .insert(t.conversationStartTasks)
            .values(placeholders(t.conversationStartTasks))
            .prepare("start_tasks_insert"),
        );
        await insert.all(row);
        return row;
      }),
    get: (id: string) =>
      read((q) => selectById(q, "start_tasks_by_id", (t) => t.conversationStartTasks, id)),
    update: (id: string, patch: StartTaskPatch) =>
      write(({ db, t }) => {
        const tasks = t.conversationStartTasks;
        return first(db.update(tasks).set(patch).where(eq(tasks.id, id)).returning());
      }),
    /** Every task (of any owner) in one of `statuses`: the unfinished ones, for the reconcile. */
    listByStatus: (statuses: string[]) =>
      read(async ({ db, t }) => {
        if (statuses.length === 0) return [];
        const tasks = t.conversationStartTasks;
        return db.select().from(tasks).where(inArray(tasks.status, statuses));
      }),
    search: (
      filter: StartTaskFilter,
      sort: StartTaskSort,
      direction: SortDirection,
      page: PageRequest,
    ) =>
      read((q) => {
        const tasks = q.t.conversationStartTasks;
        const key = { sort: sort === "created" ? tasks.createdAt : tasks.updatedAt, direction };
        return selectPage(q.db, tasks, matching(q, filter), key, page);
      }),
    count: (filter: StartTaskFilter) =>
      read((q) => countWhere(q.db, q.t.conversationStartTasks, matching(q, filter))),
  };
}
