import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { GetConversationInput, Success } from "../contracts";
import { deleteConversation as deleteConversationVerb } from "../service/delete-conversation";

export const deleteConversation = authedProcedure
  .meta(
    rest("DELETE", "/app-conversations/{id}", "delete_app_conversation", {
      // OpenHands' operationId (its path names the parameter conversation_id); the path keeps the
      // specification's {id}, so one path template has one parameter name.
      operationIdPath: "/app-conversations/{conversation_id}",
      summary: "Delete a conversation",
      description:
        "Removes the conversation and its stored events. Its sandbox is deleted too when this conversation started it and no other live conversation is in it; otherwise the sandbox stays and its agent server forgets the conversation.",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(GetConversationInput)
  .output(Success)
  .mutation(async ({ ctx, input }) => {
    await deleteConversationVerb(ctx.deps, ctx.user.id, input.id);
    return { success: true };
  });
