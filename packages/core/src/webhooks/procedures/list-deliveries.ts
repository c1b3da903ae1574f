import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ListDeliveriesInput, WebhookDeliveryPage } from "../contracts";
import { listDeliveries as listDeliveriesVerb } from "../service/read-webhooks";

export const listDeliveries = authedProcedure
  .meta(
    rest("GET", "/webhooks/{id}/deliveries", "search_webhook_deliveries", {
      summary: "List a webhook's deliveries",
      description: "Newest first, with status, attempts and the last error of each.",
      tag: "Webhooks",
      errors: ["WEBHOOK_NOT_FOUND"],
    }),
  )
  .input(ListDeliveriesInput)
  .output(WebhookDeliveryPage)
  .query(async ({ ctx, input }) => {
    const page = await listDeliveriesVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
