import type {
  ConversationEventRow,
  ConversationRow,
  EventActivity,
  NewWebhookDelivery,
  Repositories,
  WebhookRow,
} from "@sandbox-server/db";
import { deliveriesFor } from "../../webhooks/service/queue-deliveries";
import type { IncomingEvent } from "../contracts";
import type { IngestDeps } from "../ingest/ingest-deps";
import { eventActivity, mergeActivity } from "./conversation-metadata";

export interface EventToRecord {
  conversation: ConversationRow;
  event: IncomingEvent;
  timestampUs: number;
}

/**
 * Stores events of conversations, updates each conversation's record and queues each event for
 * every matching webhook, all in one transaction: events are stored with their outbox rows or not
 * at all. A resent event (same id) changes nothing. Returns, per event, whether it was new.
 *
 * The batch costs a few statements, not a few per event: its events are inserted together, then
 * their outbox rows together, and the conversations' records in one write, each with its new
 * events' activity merged in order (the same record as one update per event); each owner's
 * webhooks are read once.
 */
export async function recordEvents(deps: IngestDeps, items: EventToRecord[]): Promise<boolean[]> {
  let queued = 0;
  const stored = await deps.transaction(async (tx) => {
    const news = await tx.conversationEvents.insertManyIfNew(
      items.map((item) => eventRow(deps, item)),
    );
    const activity = new Map<string, EventActivity>();
    const hooksOf = new Map<string, WebhookRow[]>();
    const deliveries: NewWebhookDelivery[] = [];
    for (const [i, item] of items.entries()) {
      if (!news[i]) continue;
      const { conversation, event, timestampUs } = item;
      const next = eventActivity(event, Math.floor(timestampUs / 1000));
      const before = activity.get(conversation.id);
      activity.set(conversation.id, before ? mergeActivity(before, next) : next);
      let hooks = hooksOf.get(conversation.ownerId);
      if (!hooks) {
        hooks = await tx.webhooks.listByOwner(conversation.ownerId);
        hooksOf.set(conversation.ownerId, hooks);
      }
      if (hooks.length > 0) deliveries.push(...(await eventDeliveries(deps, tx, item, hooks)));
    }
    // In event order: each stream's outbox rows are queued as its events came.
    await tx.webhookDeliveries.insertMany(deliveries);
    queued = deliveries.length;
    await tx.conversations.recordEventActivities(
      [...activity].map(([id, event]) => ({ id, event })),
    );
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

/** One event's row. */
function eventRow(
  deps: IngestDeps,
  { conversation, event, timestampUs }: EventToRecord,
): ConversationEventRow {
  return {
    id: event.id,
    conversationId: conversation.id,
    ownerId: conversation.ownerId,
    timestamp: event.timestamp,
    timestampUs,
    kind: event.kind,
    source: event.source,
    body: event,
    receivedAt: deps.now(),
  };
}

/** The event's outbox rows for the owner's matching webhooks (`hooks`). */
function eventDeliveries(
  deps: IngestDeps,
  tx: Repositories,
  { conversation, event }: EventToRecord,
  hooks: WebhookRow[],
): Promise<NewWebhookDelivery[]> {
  return deliveriesFor(
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
    hooks,
  );
}
