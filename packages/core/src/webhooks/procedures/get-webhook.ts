import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Webhook, WebhookIdInput } from "../contracts";
import { getWebhook as getWebhookVerb } from "../service/read-webhooks";

export const getWebhook = authedProcedure
  .meta(
    rest("GET", "/webhooks/{id}", "get_webhook", {
      summary: "Read a webhook",
      description:
        "One of the caller's webhooks (without its secret). Another user's webhook is 404.",
      tag: "Webhooks",
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
  )
  .input(WebhookIdInput)
  .output(Webhook)
  .query(({ ctx, input }) => getWebhookVerb(ctx.deps, ctx.user.id, input.id));
