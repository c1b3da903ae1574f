import { HttpStatus } from "../../errors";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { toAppConversation } from "../contracts";
import { createConversation as createConversationVerb } from "../service/create-conversation";
import { CreateConversationInput, StartedAppConversation, toStartTask } from "../start-contracts";

export const createConversation = authedProcedure
  .meta(
    rest("POST", "/app-conversations", "start_app_conversation", {
      summary: "Create a conversation",
      description:
        "Starts a sandbox (or uses `sandbox_id`), waits until it is RUNNING and the conversation exists on its agent server, delivers `initial_message` (which runs the agent unless it says `run: false`), and returns the conversation. The answer is also the conversation's start task (`status: READY`, id = conversation id), as OpenHands clients expect; a failed create answers the error and leaves the task in ERROR (`details.start_task_id`), readable at `GET /app-conversations/start-tasks?ids=`.",
      tag: "App conversations",
      successStatus: HttpStatus.CREATED,
      errors: [
        "CONVERSATION_NOT_FOUND",
        "SANDBOX_NOT_FOUND",
        "SANDBOX_SPEC_NOT_FOUND",
        "SANDBOX_NOT_RUNNING",
        "CONVERSATION_EXISTS",
        "SANDBOX_LIMIT_REACHED",
        "SANDBOX_START_FAILED",
      ],
    }),
  )
  .input(CreateConversationInput)
  .output(StartedAppConversation)
  .mutation(async ({ ctx, input }) => {
    const recordId = ctx.idempotency.recordId ?? null;
    const created = await createConversationVerb(ctx.deps, ctx.user.id, input, undefined, recordId);
    // The answer went under the key with the conversation, in its transaction.
    if (recordId) ctx.idempotency.answered = true;
    const conversation = toAppConversation(created.row, created.sandbox, created.executionStatus);
    return { ...toStartTask(created.task), ...conversation };
  });
