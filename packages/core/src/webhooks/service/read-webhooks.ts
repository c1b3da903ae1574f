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

export function listWebhooks(
  deps: CoreDeps,
  ownerId: string,
  page: { limit: number; page_id?: string | undefined },
): Page<Webhook> {
  const rows = deps.repos.webhooks.search(ownerId, { limit: page.limit, pageId: page.page_id });
  return { items: rows.items.map(toWebhook), nextPageId: rows.nextPageId };
}

export function getWebhook(deps: CoreDeps, ownerId: string, id: string): Webhook {
  return toWebhook(findOwnedWebhook(deps, ownerId, id));
}

/** A webhook's deliveries, newest first: status, attempts and the last error of each. */
export function listDeliveries(
  deps: CoreDeps,
  ownerId: string,
  input: ListDeliveriesInput,
): Page<WebhookDelivery> {
  const webhook = findOwnedWebhook(deps, ownerId, input.id);
  const rows = deps.repos.webhookDeliveries.search(
    { webhookId: webhook.id, status: input.status },
    { limit: input.limit, pageId: input.page_id },
  );
  return { items: rows.items.map(toWebhookDelivery), nextPageId: rows.nextPageId };
}
