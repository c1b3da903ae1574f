import { HttpStatus } from "../errors";
import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { AppConversation, CreateConversationInput, toAppConversation } from "./contracts";
import { createConversation as createConversationVerb } from "./service/create-conversation";

export const createConversation = authedProcedure
  .meta(
    rest("POST", "/app-conversations", "start_app_conversation", {
      summary: "Create a conversation",
      description:
        "Starts a sandbox (or uses `sandbox_id`), waits until it is RUNNING and the conversation exists on its agent server, delivers `initial_message`, and returns the conversation.",
      tag: "App conversations",
      successStatus: HttpStatus.CREATED,
      errors: [
        "SANDBOX_NOT_FOUND",
        "SANDBOX_SPEC_NOT_FOUND",
        "SANDBOX_NOT_RUNNING",
        "SANDBOX_LIMIT_REACHED",
        "SANDBOX_START_FAILED",
      ],
    }),
  )
  .input(CreateConversationInput)
  .output(AppConversation)
  .mutation(async ({ ctx, input }) => {
    const created = await createConversationVerb(ctx.deps, ctx.user.id, input);
    return toAppConversation(created.row, created.sandbox, created.executionStatus);
  });
