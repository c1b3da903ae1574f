import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { DeleteWebhookOutput, WebhookIdInput } from "../contracts";
import { deleteWebhook as deleteWebhookVerb } from "../service/delete-webhook";

export const deleteWebhook = authedProcedure
  .meta(
    rest("DELETE", "/webhooks/{id}", "delete_webhook", {
      summary: "Delete a webhook",
      description: "Its pending deliveries are dropped.",
      tag: "Webhooks",
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
  )
  .input(WebhookIdInput)
  .output(DeleteWebhookOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteWebhookVerb(ctx.deps, ctx.user.id, input.id);
    return { success: true, id: input.id };
  });
