import type { NewWebhookDelivery, Repositories, WebhookRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { newId } from "../../shared/ids";
import type { WebhookPayload } from "../contracts";

export interface Occurrence {
  /** Only this user's webhooks receive it. */
  ownerId: string;
  /** Deliveries of one stream reach each webhook in the order they were queued. */
  stream: string;
  payload: WebhookPayload;
}

/**
 * Writes one outbox row per matching webhook of the owner. Pass the transaction's repositories
 * (`repos`), so the occurrence and its outbox rows are committed together or not at all. Returns
 * the row count.
 */
export async function queueDeliveries(
  deps: Pick<CoreDeps, "repos" | "now">,
  occurrence: Occurrence,
  repos: Repositories = deps.repos,
): Promise<number> {
  const rows = await deliveriesFor(
    deps,
    occurrence,
    repos,
    await repos.webhooks.listByOwner(occurrence.ownerId),
  );
  await repos.webhookDeliveries.insertMany(rows);
  return rows.length;
}

/**
 * The outbox rows of an occurrence, one per webhook of `ownerHooks` (the owner's webhooks, as read
 * in the caller's transaction) that wants it; the caller inserts them (a batch of events inserts
 * all of theirs at once).
 */
export async function deliveriesFor(
  deps: Pick<CoreDeps, "now">,
  occurrence: Occurrence,
  repos: Repositories,
  ownerHooks: WebhookRow[],
): Promise<NewWebhookDelivery[]> {
  const hooks: WebhookRow[] = [];
  for (const hook of ownerHooks) {
    if (
      wantsKind(hook, occurrence.payload.kind) &&
      (await inScope(repos, hook, occurrence.payload))
    )
      hooks.push(hook);
  }
  if (hooks.length === 0) return [];
  const body = JSON.stringify(occurrence.payload);
  const now = deps.now();
  return hooks.map((hook) => ({
    id: newId("whd"),
    webhookId: hook.id,
    stream: occurrence.stream,
    eventId: occurrence.payload.event_id,
    eventKind: occurrence.payload.kind,
    payload: body,
    status: "pending",
    attempts: 0,
    nextAttemptAt: now,
    lastStatusCode: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  }));
}

function wantsKind(hook: WebhookRow, kind: string): boolean {
  return hook.events === null || hook.events.includes(kind);
}

/** A conversation-scoped webhook gets that conversation's events and its sandbox's lifecycle. */
async function inScope(
  repos: Repositories,
  hook: WebhookRow,
  payload: WebhookPayload,
): Promise<boolean> {
  if (hook.conversationId === null) return true;
  if (payload.conversation_id !== null) return hook.conversationId === payload.conversation_id;
  return (await repos.conversations.get(hook.conversationId))?.sandboxId === payload.sandbox_id;
}
