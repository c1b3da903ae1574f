import { and, eq, gte, inArray, type SQL, sql } from "drizzle-orm";
import type { PageRequest, SortDirection } from "../paging";
import type { StartTaskFilter, StartTaskPatch, StartTaskRow, StartTaskSort } from "../port/rows";
import {
  countWhere,
  type Executor,
  placeholders,
  type Query,
  selectById,
  selectPage,
} from "../query/query";

export type StartTaskRepository = ReturnType<typeof createStartTaskRepository>;

/** The columns a patch may set, each text or a time that is never null (every one: typed). */
const PATCHABLE = Object.keys({
  status: true,
  detail: true,
  appConversationId: true,
  sandboxId: true,
  agentServerUrl: true,
  idempotencyRecordId: true,
  updatedAt: true,
} satisfies Record<keyof StartTaskPatch, true>) as (keyof StartTaskPatch)[];

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
    /** Applies `patch` (its undefined fields left out) and returns the task, if it exists. */
    update: (id: string, patch: StartTaskPatch) =>
      write((q) => {
        const given = PATCHABLE.filter((column) => patch[column] !== undefined);
        // A create moves its task three or four times, with a few shapes of patch: a statement
        // per shape (the columns it sets), prepared once per connection.
        const mask = given.reduce((bits, column) => bits | (1 << PATCHABLE.indexOf(column)), 0);
        const name = `start_tasks_update_${mask}`;
        const update = q.prepared(name, ({ db, t }) => {
          const tasks = t.conversationStartTasks;
          const set = Object.fromEntries(given.map((column) => [column, sql.placeholder(column)]));
          return db
            .update(tasks)
            .set(set)
            .where(eq(tasks.id, sql.placeholder("id")))
            .returning()
            .prepare(name);
        });
        return update.first({ ...patch, id });
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
