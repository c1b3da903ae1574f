import { EventSortOrder } from "@sandbox-server/agent-contracts";
import type { ConversationEventRow } from "@sandbox-server/db";
import { z } from "zod";
import { ConversationId } from "../conversations/contracts";
import { pageInput, pageOf, Timestamp } from "../shared/contracts";
import { QueryDateTime } from "../shared/query-time";

/** An event as its agent server sent it; the fields below are on every event. */
export const ConversationEvent = z
  .looseObject({
    id: z.string(),
    timestamp: Timestamp,
    source: z.string().describe("agent, user or environment"),
    kind: z.string().describe("MessageEvent, ActionEvent, ObservationEvent, ..."),
  })
  .meta({ id: "ConversationEvent" });
export type ConversationEvent = z.infer<typeof ConversationEvent>;

export const ConversationEventPage = pageOf(ConversationEvent, "ConversationEventPage");

/** OpenHands' event kinds (`kind__eq` takes only these, as upstream does). */
export const EventKind = z
  .enum([
    "MessageEvent",
    "ActionEvent",
    "ObservationEvent",
    "AgentErrorEvent",
    "UserRejectObservation",
    "SystemPromptEvent",
    "ConversationStateUpdateEvent",
    "ConversationErrorEvent",
    "PauseEvent",
    "InterruptEvent",
    "Condensation",
    "CondensationRequest",
    "CondensationSummaryEvent",
    "HookExecutionEvent",
    "LLMCompletionLogEvent",
    "TokenEvent",
    "StreamingDeltaEvent",
    "ACPToolCallEvent",
  ])
  .meta({ id: "EventKind" });

/** Filters of every event search and count (times bound the event's own timestamp). */
const eventFilterFields = {
  kind__eq: EventKind.optional().describe("Only events of this kind"),
  timestamp__gte: QueryDateTime.optional(),
  timestamp__lt: QueryDateTime.optional(),
};

export const SearchConversationEventsInput = z.object({
  id: ConversationId,
  ...pageInput,
  ...eventFilterFields,
  kind: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("Only events of this kind, e.g. MessageEvent (any kind name)"),
  sort_order: EventSortOrder.default("TIMESTAMP"),
});

/** OpenHands' path names the conversation `conversation_id`. */
export const SearchEventsInput = z.object({
  conversation_id: ConversationId,
  ...pageInput,
  ...eventFilterFields,
  sort_order: EventSortOrder.default("TIMESTAMP"),
});

export const CountEventsInput = z.object({
  conversation_id: ConversationId,
  ...eventFilterFields,
});

/** What the event search and count verbs take, whichever path asked. */
export interface EventQuery {
  conversationId: string;
  kind?: string | undefined;
  fromUs?: number | undefined;
  beforeUs?: number | undefined;
}

export function eventQuery(
  conversationId: string,
  input: z.infer<z.ZodObject<typeof eventFilterFields>> & { kind?: string | undefined },
): EventQuery {
  return {
    conversationId,
    kind: input.kind__eq ?? input.kind,
    fromUs: input.timestamp__gte,
    beforeUs: input.timestamp__lt,
  };
}

/**
 * What the follower takes from an agent server frame before storing it. Sandboxes are not trusted:
 * the fields the store indexes are bounded; the rest is kept as sent.
 */
export const IncomingEvent = z.looseObject({
  id: z.string().min(1).max(128),
  timestamp: z.string().min(1).max(64),
  kind: z.string().min(1).max(64),
  source: z.string().max(32),
});
export type IncomingEvent = z.infer<typeof IncomingEvent>;

export function toConversationEvent(row: ConversationEventRow): ConversationEvent {
  return row.body as ConversationEvent;
}
