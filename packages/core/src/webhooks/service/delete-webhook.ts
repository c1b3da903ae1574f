import type { CoreDeps } from "../../deps";
import { findOwnedWebhook } from "./find-webhook";

/** Removes the webhook with its deliveries; pending ones are not sent any more. */
export async function deleteWebhook(
  deps: Pick<CoreDeps, "log" | "repos">,
  ownerId: string,
  id: string,
): Promise<void> {
  const row = await findOwnedWebhook(deps, ownerId, id);
  await deps.repos.webhooks.remove(row.id);
  deps.log.info({ webhookId: row.id, ownerId }, "webhook deleted");
}
