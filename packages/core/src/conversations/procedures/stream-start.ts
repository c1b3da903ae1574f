import type { StartTaskRow } from "@sandbox-server/db";
import { z } from "zod";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { createConversation } from "../service/create-conversation";
import { CreateConversationInput, StartTask, toStartTask } from "../start-contracts";

export const streamStartConversation = authedProcedure
  .meta(
    rest("POST", "/app-conversations/stream-start", "stream_app_conversation_start", {
      summary: "Create a conversation, answering every state of its start task",
      description:
        "The same create as `POST /app-conversations`, answered (200) with the JSON array of every state its start task took, ending in READY or ERROR. OpenHands streams the array while it grows; here it is sent whole once the create has finished.",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND", "CONVERSATION_EXISTS"],
    }),
  )
  .input(CreateConversationInput)
  .output(z.array(StartTask))
  .mutation(async ({ ctx, input }) => {
    const states: StartTaskRow[] = [];
    const collect = (task: StartTaskRow) => {
      states.push(task);
    };
    try {
      await createConversation(ctx.deps, ctx.user.id, input, collect);
    } catch (error) {
      // Failures before the task existed are errors; later ones are its ERROR state.
      if (states.length === 0) throw error;
    }
    return states.map(toStartTask);
  });
