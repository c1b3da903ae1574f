import type { WebhookRow } from "@sandbox-server/db";
import { findOwnedConversation } from "../../conversations/service/find-conversation";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { newId } from "../../shared/ids";
import type { CreateWebhookInput } from "../contracts";
import { assertAllowedDestination } from "./check-destination";
import { generateSecret } from "./sign";

/**
 * Registers a webhook: its URL must be an allowed destination (else 422), a scoped one must name
 * one of the caller's conversations (else 404), and the caller may hold at most
 * `maxWebhooksPerUser` (else 409; counted and inserted in one transaction, so concurrent creates
 * cannot pass it).
 */
export async function createWebhook(
  deps: Pick<CoreDeps, "log" | "now" | "repos" | "transaction"> & {
    config: Pick<
      CoreConfig,
      | "maxWebhooksPerUser"
      | "webhookAllowPrivateNetworks"
      | "webhookDeniedTargets"
      | "webhookResolveHost"
      | "webhookTimeoutMs"
    >;
  },
  ownerId: string,
  input: CreateWebhookInput,
): Promise<WebhookRow> {
  await assertAllowedDestination(deps, input.url);
  if (input.conversation_id) await findOwnedConversation(deps, ownerId, input.conversation_id);
  const limit = deps.config.maxWebhooksPerUser;
  const row = await deps.transaction(async (tx) => {
    if ((await tx.webhooks.listByOwner(ownerId)).length >= limit) {
      throw new AppError(
        "WEBHOOK_LIMIT_REACHED",
        `A user can register at most ${limit} webhooks; delete one first`,
        { details: { limit } },
      );
    }
    return tx.webhooks.insert({
      id: newId("wh"),
      ownerId,
      url: input.url,
      events: input.events ? [...new Set(input.events)] : null,
      conversationId: input.conversation_id ?? null,
      secret: input.secret ?? generateSecret(),
      createdAt: deps.now(),
    });
  });
  deps.log.info({ webhookId: row.id, ownerId }, "webhook created");
  return row;
}
