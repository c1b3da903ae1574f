import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { batchGetStartTasks } from "../service/read-start-tasks";
import { BatchStartTasksInput, StartTaskBatch } from "../start-contracts";

export const getStartTasks = authedProcedure
  .meta(
    rest("GET", "/app-conversations/start-tasks", "batch_get_app_conversation_start_tasks", {
      summary: "Read start tasks by id",
      description:
        "An array aligned with `ids` (`ids=a&ids=b`), null where a task is unknown or not yours. A task's id is the id of the conversation it creates.",
      tag: "App conversations",
    }),
  )
  .input(BatchStartTasksInput)
  .output(StartTaskBatch)
  .query(({ ctx, input }) => batchGetStartTasks(ctx.deps, ctx.user.id, input.ids));
