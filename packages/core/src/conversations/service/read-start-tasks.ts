import type { Page, StartTaskFilter } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { microsToMillisCeil } from "../../shared/query-time";
import { type SearchStartTasksInput, type StartTask, toStartTask } from "../start-contracts";

/** Start tasks by id, aligned with `ids`: null where one is unknown or another user's. */
export function batchGetStartTasks(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  ids: string[],
): Promise<(StartTask | null)[]> {
  return Promise.all(
    ids.map(async (id) => {
      const row = await deps.repos.startTasks.get(id);
      return row && row.ownerId === ownerId ? toStartTask(row) : null;
    }),
  );
}

interface StartTaskFilterInput {
  conversation_id__eq?: string | undefined;
  created_at__gte?: number | undefined;
}

function filterOf(ownerId: string, input: StartTaskFilterInput): StartTaskFilter {
  return {
    ownerId,
    conversationId: input.conversation_id__eq,
    createdFrom:
      input.created_at__gte === undefined ? undefined : microsToMillisCeil(input.created_at__gte),
  };
}

export async function searchStartTasks(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  input: SearchStartTasksInput,
): Promise<Page<StartTask>> {
  const page = await deps.repos.startTasks.search(
    filterOf(ownerId, input),
    input.sort_order.startsWith("CREATED") ? "created" : "updated",
    input.sort_order.endsWith("_DESC") ? "desc" : "asc",
    { limit: input.limit, pageId: input.page_id },
  );
  return { items: page.items.map(toStartTask), nextPageId: page.nextPageId };
}

export function countStartTasks(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  input: StartTaskFilterInput,
): Promise<number> {
  return deps.repos.startTasks.count(filterOf(ownerId, input));
}
