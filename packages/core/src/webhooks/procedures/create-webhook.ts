import { HttpStatus } from "../../errors";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { CreatedWebhook, CreateWebhookInput, toWebhook } from "../contracts";
import { createWebhook as createWebhookVerb } from "../service/create-webhook";

export const createWebhook = authedProcedure
  .meta(
    rest("POST", "/webhooks", "create_webhook", {
      summary: "Register a webhook",
      description:
        "Events of the caller's conversations and sandboxes are POSTed to `url`, signed in the Standard Webhooks format (headers `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>`) with `secret` (`whsec_` + base64 of the key: verify with any `standardwebhooks` library). The secret is shown only in this answer. Credentials in `url` (`user:password@`) are sent as HTTP Basic authentication and shown as `***`. A `url` whose host is or resolves to a loopback, private, link-local, carrier-grade NAT, multicast, unspecified, broadcast, reserved or cloud-metadata address is refused with 422 (private networks are allowed when the server runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, except the control plane itself, sandboxes' agent servers and metadata addresses); every connection is checked again.",
      tag: "Webhooks",
      successStatus: HttpStatus.CREATED,
      errors: ["CONVERSATION_NOT_FOUND", "WEBHOOK_LIMIT_REACHED"],
    }),
  )
  .input(CreateWebhookInput)
  .output(CreatedWebhook)
  .mutation(async ({ ctx, input }) => {
    const row = await createWebhookVerb(ctx.deps, ctx.user.id, input);
    return { ...toWebhook(row), secret: row.secret };
  });
