import type { Page } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import {
  type ListDeliveriesInput,
  toWebhook,
  toWebhookDelivery,
  type Webhook,
  type WebhookDelivery,
} from "../contracts";
import { findOwnedWebhook } from "./find-webhook";

export async function listWebhooks(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  page: { limit: number; page_id?: string | undefined },
): Promise<Page<Webhook>> {
  const rows = await deps.repos.webhooks.search(ownerId, {
    limit: page.limit,
    pageId: page.page_id,
  });
  return { items: rows.items.map(toWebhook), nextPageId: rows.nextPageId };
}

export async function getWebhook(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  id: string,
): Promise<Webhook> {
  return toWebhook(await findOwnedWebhook(deps, ownerId, id));
}

/** A webhook's deliveries, newest first: status, attempts and the last error of each. */
export async function listDeliveries(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  input: ListDeliveriesInput,
): Promise<Page<WebhookDelivery>> {
  const webhook = await findOwnedWebhook(deps, ownerId, input.id);
  const rows = await deps.repos.webhookDeliveries.search(
    { webhookId: webhook.id, status: input.status },
    { limit: input.limit, pageId: input.page_id },
  );
  return { items: rows.items.map(toWebhookDelivery), nextPageId: rows.nextPageId };
}
