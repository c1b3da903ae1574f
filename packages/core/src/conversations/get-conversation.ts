import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { AppConversation, GetConversationInput } from "./contracts";
import { getConversation as getConversationVerb } from "./service/read-conversations";

export const getConversation = authedProcedure
  .meta(
    rest("GET", "/app-conversations/{id}", "get_app_conversation", {
      summary: "Read a conversation, including its conversation_url",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(GetConversationInput)
  .output(AppConversation)
  .query(({ ctx, input }) => getConversationVerb(ctx.deps, ctx.user.id, input.id));
