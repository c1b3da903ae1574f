import type { ConversationRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { queueDeliveries } from "../../webhooks/service/queue-deliveries";
import type { IncomingEvent } from "../contracts";
import { metadataPatch } from "./conversation-metadata";

/**
 * Stores one event of a conversation, updates the conversation's record and queues the event for
 * every matching webhook, all in one transaction: an event is either stored with its outbox rows
 * or not at all. A resent event (same id) changes nothing. Returns whether the event was new.
 */
export function recordEvent(
  deps: CoreDeps,
  conversation: ConversationRow,
  event: IncomingEvent,
  timestampUs: number,
): boolean {
  const eventMs = Math.floor(timestampUs / 1000);
  const queued = deps.transaction(() => {
    const stored = deps.repos.conversationEvents.insertIfNew({
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
    const current = deps.repos.conversations.get(conversation.id) ?? conversation;
    deps.repos.conversations.update(conversation.id, metadataPatch(current, event, eventMs));
    return queueDeliveries(deps, {
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
    });
  });
  if (queued === null) return false;
  // An agent still producing events is not idle, even when nobody sends it messages.
  deps.activity.set(conversation.sandboxId, deps.now());
  if (queued > 0) deps.events.emit("webhooks.queued");
  return true;
}
