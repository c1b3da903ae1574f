import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { AppConversation } from "../contracts";
import { getConversation as getConversationVerb } from "../service/read-conversations";
import { waitForConversation } from "../service/wait-for-conversation";
import { GetConversationWaitInput } from "../wait-contracts";

export const getConversation = authedProcedure
  .meta(
    rest("GET", "/app-conversations/{id}", "get_app_conversation", {
      summary: "Read a conversation, including its conversation_url",
      description:
        "One of the caller's conversations with its sandbox's status, `execution_status` and, while the sandbox is RUNNING, `conversation_url` and `session_api_key` for talking to its agent server directly. Another user's conversation is 404.",
      tag: "App conversations",
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(GetConversationWaitInput)
  .output(AppConversation)
  .query(({ ctx, input }) =>
    input.wait_for
      ? waitForConversation(ctx.deps, ctx.user.id, input.id, input.wait_for, input.timeout_s * 1000)
      : getConversationVerb(ctx.deps, ctx.user.id, input.id),
  );
