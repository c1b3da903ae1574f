import { HttpStatus } from "../errors";
import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { CreatedWebhook, CreateWebhookInput, toWebhook } from "./contracts";
import { createWebhook as createWebhookVerb } from "./service/create-webhook";

export const createWebhook = authedProcedure
  .meta(
    rest("POST", "/webhooks", "create_webhook", {
      summary: "Register a webhook",
      description:
        "Events of the caller's conversations and sandboxes are POSTed to `url`, signed with `secret` (X-Sandbox-Server-Signature: sha256=HMAC of `<timestamp>.<body>`). The secret is shown only in this answer.",
      tag: "Webhooks",
      successStatus: HttpStatus.CREATED,
      errors: ["CONVERSATION_NOT_FOUND"],
    }),
  )
  .input(CreateWebhookInput)
  .output(CreatedWebhook)
  .mutation(({ ctx, input }) => {
    const row = createWebhookVerb(ctx.deps, ctx.user.id, input);
    return { ...toWebhook(row), secret: row.secret };
  });
