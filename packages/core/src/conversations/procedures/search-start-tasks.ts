import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { searchStartTasks as searchStartTasksVerb } from "../service/read-start-tasks";
import { SearchStartTasksInput, StartTaskPage } from "../start-contracts";

export const searchStartTasks = authedProcedure
  .meta(
    rest("GET", "/app-conversations/start-tasks/search", "search_app_conversation_start_tasks", {
      summary: "Search start tasks",
      description:
        "The caller's start tasks (each conversation create, with its progress to READY or ERROR), a page at a time, filtered by `conversation_id__eq` and `created_at__gte`.",
      tag: "App conversations",
    }),
  )
  .input(SearchStartTasksInput)
  .output(StartTaskPage)
  .query(async ({ ctx, input }) => {
    const page = await searchStartTasksVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
