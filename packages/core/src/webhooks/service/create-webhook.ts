import type { WebhookRow } from "@sandbox-server/db";
import { findOwnedConversation } from "../../conversations/service/find-conversation";
import type { CoreDeps } from "../../deps";
import { newId } from "../../shared/ids";
import type { CreateWebhookInput } from "../contracts";
import { assertAllowedDestination } from "./check-destination";
import { generateSecret } from "./sign";

/**
 * Registers a webhook: its URL must be an allowed destination (else 422), and a scoped one must
 * name one of the caller's conversations (else 404).
 */
export async function createWebhook(
  deps: CoreDeps,
  ownerId: string,
  input: CreateWebhookInput,
): Promise<WebhookRow> {
  await assertAllowedDestination(deps, input.url);
  if (input.conversation_id) await findOwnedConversation(deps, ownerId, input.conversation_id);
  const row = await deps.repos.webhooks.insert({
    id: newId("wh"),
    ownerId,
    url: input.url,
    events: input.events ? [...new Set(input.events)] : null,
    conversationId: input.conversation_id ?? null,
    secret: input.secret ?? generateSecret(),
    createdAt: deps.now(),
  });
  deps.log.info({ webhookId: row.id, ownerId }, "webhook created");
  return row;
}
