import { z } from "zod";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { countStartTasks as countStartTasksVerb } from "../service/read-start-tasks";
import { CountStartTasksInput } from "../start-contracts";

export const countStartTasks = authedProcedure
  .meta(
    rest("GET", "/app-conversations/start-tasks/count", "count_app_conversation_start_tasks", {
      summary: "Count start tasks",
      description: "How many of the caller's start tasks match the same filters as the search.",
      tag: "App conversations",
    }),
  )
  .input(CountStartTasksInput)
  .output(z.number().int())
  .query(({ ctx, input }) => countStartTasksVerb(ctx.deps, ctx.user.id, input));
