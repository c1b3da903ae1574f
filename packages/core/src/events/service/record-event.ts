import type { ConversationRow, Repositories } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { queueDeliveries } from "../../webhooks/service/queue-deliveries";
import type { IncomingEvent } from "../contracts";
import { eventActivity } from "./conversation-metadata";

export interface EventToRecord {
  conversation: ConversationRow;
  event: IncomingEvent;
  timestampUs: number;
}

/**
 * Stores events of conversations, updates each conversation's record and queues each event for
 * every matching webhook, all in one transaction: events are stored with their outbox rows or not
 * at all. A resent event (same id) changes nothing. Returns, per event, whether it was new.
 */
export async function recordEvents(deps: CoreDeps, items: EventToRecord[]): Promise<boolean[]> {
  let queued = 0;
  const stored = await deps.transaction(async (tx) => {
    const news: boolean[] = [];
    for (const item of items) {
      const count = await storeEvent(deps, tx, item);
      if (count !== null) queued += count;
      news.push(count !== null);
    }
    return news;
  });
  const now = deps.now();
  items.forEach((item, i) => {
    // An agent still producing events is not idle, even when nobody sends it messages.
    if (!stored[i]) return;
    deps.activity.set(item.conversation.sandboxId, now);
    deps.metrics?.eventStored((now - item.timestampUs / 1000) / 1000);
  });
  const touched = new Set(items.filter((_, i) => stored[i]).map((i) => i.conversation.id));
  for (const id of touched) deps.events.emit("conversation.activity", id);
  if (queued > 0) deps.events.emit("webhooks.queued");
  return stored;
}

/** One event, inside the caller's transaction; the number of deliveries queued, null if known. */
async function storeEvent(
  deps: CoreDeps,
  tx: Repositories,
  { conversation, event, timestampUs }: EventToRecord,
): Promise<number | null> {
  const eventMs = Math.floor(timestampUs / 1000);
  const stored = await tx.conversationEvents.insertIfNew({
    id: event.id,
    conversationId: conversation.id,
    ownerId: conversation.ownerId,
    timestamp: event.timestamp,
    timestampUs,
    kind: event.kind,
    source: event.source,
    body: event,
    receivedAt: deps.now(),
  });
  if (!stored) return null;
  await tx.conversations.recordEventActivity(conversation.id, eventActivity(event, eventMs));
  return queueDeliveries(
    deps,
    {
      ownerId: conversation.ownerId,
      stream: `conversation:${conversation.id}`,
      payload: {
        event_id: event.id,
        kind: event.kind,
        occurred_at: event.timestamp,
        sandbox_id: conversation.sandboxId,
        conversation_id: conversation.id,
        data: event,
      },
    },
    tx,
  );
}
