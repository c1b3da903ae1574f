import {
  type AgentEvent,
  type EventPage,
  EventSortOrder,
  EventSource,
} from "@sandbox-server/agent-contracts";
import { z } from "zod";
import { parseTimestamp } from "../clock";
import type { Conversation } from "../conversations/conversation";
import { firstValues, PageQuery, paginate } from "../http/paging";
import { validate } from "../http/validate";

const Timestamp = z.string().transform((text, ctx) => {
  const micros = parseTimestamp(text);
  if (micros === undefined) {
    ctx.addIssue({ code: "custom", message: "expected an ISO 8601 timestamp" });
    return z.NEVER;
  }
  return micros;
});

const EventFilter = z.object({
  // Upstream matches a Python module path; the short class name (its last part) is what counts.
  kind: z
    .string()
    .min(1)
    .transform((kind) => kind.split(".").pop() ?? kind)
    .optional(),
  source: EventSource.optional(),
  body: z.string().min(1).optional(),
  timestamp__gte: Timestamp.optional(),
  timestamp__lt: Timestamp.optional(),
});
type EventFilter = z.infer<typeof EventFilter>;

const SearchQuery = PageQuery.extend({
  sort_order: EventSortOrder.default("TIMESTAMP"),
}).and(EventFilter);

export function searchEvents(
  conversation: Conversation,
  rawQuery: Record<string, unknown>,
): EventPage {
  const query = validate(SearchQuery, firstValues(rawQuery), "query");
  const events = conversation.events();
  // The log is in time order; descending is the same list read backwards.
  const ordered = query.sort_order === "TIMESTAMP" ? events : [...events].reverse();
  return paginate(ordered, query, matcher(query));
}

export function countEvents(conversation: Conversation, rawQuery: Record<string, unknown>): number {
  const query = validate(EventFilter, firstValues(rawQuery), "query");
  return conversation.events().filter(matcher(query)).length;
}

function matcher(filter: EventFilter): (event: AgentEvent) => boolean {
  const body = filter.body?.toLowerCase();
  return (event) => {
    if (filter.kind !== undefined && event.kind !== filter.kind) return false;
    if (filter.source !== undefined && event.source !== filter.source) return false;
    if (filter.timestamp__gte !== undefined || filter.timestamp__lt !== undefined) {
      const micros = parseTimestamp(event.timestamp) ?? 0;
      if (filter.timestamp__gte !== undefined && micros < filter.timestamp__gte) return false;
      if (filter.timestamp__lt !== undefined && micros >= filter.timestamp__lt) return false;
    }
    return body === undefined || messageContains(event, body);
  };
}

/** `body` matches the text of message events, ignoring case (as upstream does). */
function messageContains(event: AgentEvent, needle: string): boolean {
  if (event.kind !== "MessageEvent") return false;
  return event.llm_message.content.some(
    (item) => item.type === "text" && item.text.toLowerCase().includes(needle),
  );
}
