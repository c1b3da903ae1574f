import type { Repositories, WebhookRow } from "@sandbox-server/db";
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
 * the row count. `ownerHooks`, when given, are the owner's webhooks as read in that transaction
 * (a batch of events reads them once per owner, not once per event).
 */
export async function queueDeliveries(
  deps: Pick<CoreDeps, "repos" | "now">,
  occurrence: Occurrence,
  repos: Repositories = deps.repos,
  ownerHooks?: WebhookRow[],
): Promise<number> {
  const candidates = ownerHooks ?? (await repos.webhooks.listByOwner(occurrence.ownerId));
  if (candidates.length === 0) return 0;
  const hooks: WebhookRow[] = [];
  for (const hook of candidates) {
    if (
      wantsKind(hook, occurrence.payload.kind) &&
      (await inScope(repos, hook, occurrence.payload))
    )
      hooks.push(hook);
  }
  if (hooks.length === 0) return 0;
  const body = JSON.stringify(occurrence.payload);
  const now = deps.now();
  for (const hook of hooks) {
    await repos.webhookDeliveries.insert({
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
    });
  }
  return hooks.length;
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
