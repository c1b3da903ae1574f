import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { ListWebhooksInput, WebhookPage } from "../contracts";
import { listWebhooks as listWebhooksVerb } from "../service/read-webhooks";

export const listWebhooks = authedProcedure
  .meta(
    rest("GET", "/webhooks", "search_webhooks", {
      summary: "List webhooks",
      description:
        "The caller's webhooks, a page at a time. Secrets are never shown again after the create.",
      tag: "Webhooks",
    }),
  )
  .input(ListWebhooksInput)
  .output(WebhookPage)
  .query(async ({ ctx, input }) => {
    const page = await listWebhooksVerb(ctx.deps, ctx.user.id, input);
    return { items: page.items, next_page_id: page.nextPageId };
  });
