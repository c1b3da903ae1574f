import type { ConversationEventRow } from "@sandbox-server/db";
import { z } from "zod";
import { EventSortOrder } from "../agent-contracts";
import { ConversationId } from "../conversations/contracts";
import { pageInput, pageOf, Timestamp } from "../shared/contracts";

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

export const SearchConversationEventsInput = z.object({
  id: ConversationId,
  ...pageInput,
  kind: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("Only events of this kind, e.g. MessageEvent"),
  sort_order: EventSortOrder.default("TIMESTAMP"),
});
export type SearchConversationEventsInput = z.infer<typeof SearchConversationEventsInput>;

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
