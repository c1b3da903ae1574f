import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { AppConversation } from "../contracts";
import { updateConversation as updateConversationVerb } from "../service/update-conversation";
import { UpdateConversationInput } from "../update-contracts";

export const updateConversation = authedProcedure
  .meta(
    rest("PATCH", "/app-conversations/{id}", "update_app_conversation", {
      operationIdPath: "/app-conversations/{conversation_id}",
      summary: "Rename a conversation or change its OpenHands fields",
      description:
        "Only the fields present change; `null` clears one. Answers the conversation as read afterwards.",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(UpdateConversationInput)
  .output(AppConversation)
  .mutation(({ ctx, input }) => updateConversationVerb(ctx.deps, ctx.user.id, input));
