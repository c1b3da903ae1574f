import type { WebhookRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";

/** The caller's webhook, or 404 (another user's webhook is indistinguishable). */
export async function findOwnedWebhook(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  id: string,
): Promise<WebhookRow> {
  const row = await deps.repos.webhooks.get(id);
  if (!row || row.ownerId !== ownerId) {
    throw new AppError("WEBHOOK_NOT_FOUND", `Webhook ${id} was not found`);
  }
  return row;
}
