import { countForward } from "../../metrics";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { AppSendMessageResponse, SendMessageInput } from "../contracts";
import { sendMessage as sendMessageVerb } from "../service/send-message";

/** The body as the caller sent it: raw bytes over REST, the raw input (minus the path id) over tRPC. */
const withOriginalBody = authedProcedure.use(async ({ ctx, getRawInput, next }) => {
  if (ctx.rawBody) return next({ ctx: { originalBody: ctx.rawBody as string | Buffer } });
  const raw = await getRawInput();
  const { conversation_id: _id, ...body } = (raw ?? {}) as Record<string, unknown>;
  return next({ ctx: { originalBody: JSON.stringify(body) as string | Buffer } });
});

export const sendMessage = withOriginalBody
  .meta(
    rest(
      "POST",
      "/app-conversations/{conversation_id}/send-message",
      "send_message_to_conversation",
      {
        summary: "Send message to conversation",
        description:
          "Thin proxy: forwards the body unchanged to the conversation's agent server. Custom processing belongs in webhooks.",
        tag: "App conversations",
        errors: [
          "CONVERSATION_NOT_FOUND",
          "SANDBOX_NOT_FOUND",
          "SANDBOX_NOT_RUNNING",
          "CONVERSATION_ARCHIVED",
          "SANDBOX_UNAVAILABLE",
        ],
      },
    ),
  )
  .input(SendMessageInput)
  .output(AppSendMessageResponse)
  .mutation(({ ctx, input }) =>
    countForward(
      ctx.deps.metrics,
      sendMessageVerb(ctx.deps, ctx.user.id, input.conversation_id, ctx.originalBody),
    ),
  );
