import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { searchStartTasks as searchStartTasksVerb } from "./service/read-start-tasks";
import { SearchStartTasksInput, StartTaskPage } from "./start-contracts";

export const searchStartTasks = authedProcedure
  .meta(
    rest("GET", "/app-conversations/start-tasks/search", "search_app_conversation_start_tasks", {
      summary: "Search start tasks",
      tag: "App conversations",
    }),
  )
  .input(SearchStartTasksInput)
  .output(StartTaskPage)
  .query(async ({ ctx, input }) => {
    const page = await searchStartTasksVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
