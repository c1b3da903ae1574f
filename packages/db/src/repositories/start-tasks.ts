import { and, eq, gte, inArray, type SQL } from "drizzle-orm";
import type { StartTaskRepository } from "../port/repositories";
import type { StartTaskFilter, StartTaskRow } from "../port/rows";
import { countWhere, type Executor, type Query, selectPage } from "../query/query";

function matching({ t }: Query, filter: StartTaskFilter): SQL | undefined {
  const tasks = t.conversationStartTasks;
  return and(
    eq(tasks.ownerId, filter.ownerId),
    filter.conversationId ? eq(tasks.appConversationId, filter.conversationId) : undefined,
    filter.createdFrom === undefined ? undefined : gte(tasks.createdAt, filter.createdFrom),
  );
}

export function createStartTaskRepository({ read, write }: Executor): StartTaskRepository {
  return {
    insert: (row) =>
      write(async ({ db, t }) => {
        await db.insert(t.conversationStartTasks).values(row);
        return row;
      }),
    get: (id) =>
      read(async ({ db, t }) => {
        const tasks = t.conversationStartTasks;
        const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
        return row;
      }),
    update: (id, patch) =>
      write(async ({ db, t }) => {
        const tasks = t.conversationStartTasks;
        const [row] = await db.update(tasks).set(patch).where(eq(tasks.id, id)).returning();
        return row;
      }),
    listByStatus: (statuses) =>
      read(async ({ db, t }) => {
        if (statuses.length === 0) return [];
        const tasks = t.conversationStartTasks;
        return db.select().from(tasks).where(inArray(tasks.status, statuses));
      }),
    search: (filter, sort, direction, page) =>
      read((q) => {
        const tasks = q.t.conversationStartTasks;
        const key =
          sort === "created"
            ? { sort: tasks.createdAt, direction, value: (r: StartTaskRow) => r.createdAt }
            : { sort: tasks.updatedAt, direction, value: (r: StartTaskRow) => r.updatedAt };
        return selectPage(q.db, tasks, matching(q, filter), key, page);
      }),
    count: (filter) =>
      read((q) => countWhere(q.db, q.t.conversationStartTasks, matching(q, filter))),
  };
}
