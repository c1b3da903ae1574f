import { z } from "zod";
import { ContentItem, TextContent } from "./messages";

/**
 * Event contracts of the agent server: what `GET .../events/search` returns and what the
 * WebSocket `/sockets/events/{id}` sends. Unknown fields are dropped on parse rather than rejected,
 * so a reader tolerates fields added later.
 */
export const EventSource = z.enum(["agent", "user", "environment"]);
export type EventSource = z.infer<typeof EventSource>;

const eventBase = {
  id: z.string(),
  /** UTC ISO 8601 with microseconds; strictly increasing within a conversation. */
  timestamp: z.string(),
  source: EventSource,
};

export const MessageEvent = z.object({
  ...eventBase,
  kind: z.literal("MessageEvent"),
  llm_message: z.object({
    role: z.enum(["user", "assistant", "system"]),
    content: z.array(ContentItem),
  }),
  llm_response_id: z.string().nullish(),
  activated_skills: z.array(z.string()).optional(),
  extended_content: z.array(TextContent).optional(),
});
export type MessageEvent = z.infer<typeof MessageEvent>;

export const ActionEvent = z.object({
  ...eventBase,
  kind: z.literal("ActionEvent"),
  tool_name: z.string(),
  tool_call_id: z.string(),
  action: z.looseObject({ kind: z.string(), command: z.string().optional() }),
  thought: z.array(TextContent),
  llm_response_id: z.string().nullish(),
  /** The model's call as it was made (llm agent), so the history can be replayed to it. */
  tool_call: z.object({ id: z.string(), name: z.string(), arguments: z.string() }).optional(),
});
export type ActionEvent = z.infer<typeof ActionEvent>;

export const ObservationEvent = z.object({
  ...eventBase,
  kind: z.literal("ObservationEvent"),
  tool_name: z.string(),
  tool_call_id: z.string(),
  action_id: z.string(),
  observation: z.looseObject({
    kind: z.string(),
    content: z.array(TextContent),
    exit_code: z.int().nullish(),
    is_error: z.boolean(),
  }),
});
export type ObservationEvent = z.infer<typeof ObservationEvent>;

/** `key` is a ConversationInfo field name, or `full_state` with the whole ConversationInfo. */
export const ConversationStateUpdateEvent = z.object({
  ...eventBase,
  kind: z.literal("ConversationStateUpdateEvent"),
  key: z.string(),
  value: z.unknown(),
});
export type ConversationStateUpdateEvent = z.infer<typeof ConversationStateUpdateEvent>;

export const AgentErrorEvent = z.object({
  ...eventBase,
  kind: z.literal("AgentErrorEvent"),
  error: z.string(),
  tool_name: z.string().optional(),
  tool_call_id: z.string().optional(),
});
export type AgentErrorEvent = z.infer<typeof AgentErrorEvent>;

export const ConversationErrorEvent = z.object({
  ...eventBase,
  kind: z.literal("ConversationErrorEvent"),
  code: z.string(),
  detail: z.string(),
});
export type ConversationErrorEvent = z.infer<typeof ConversationErrorEvent>;

export const AgentEvent = z.discriminatedUnion("kind", [
  MessageEvent,
  ActionEvent,
  ObservationEvent,
  ConversationStateUpdateEvent,
  AgentErrorEvent,
  ConversationErrorEvent,
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
export type AgentEventKind = AgentEvent["kind"];

export const EventSortOrder = z.enum(["TIMESTAMP", "TIMESTAMP_DESC"]);
export type EventSortOrder = z.infer<typeof EventSortOrder>;

export const EventPage = z.object({
  items: z.array(AgentEvent),
  next_page_id: z.string().nullable(),
});
export type EventPage = z.infer<typeof EventPage>;

/** Sent over the events WebSocket when a client frame is rejected; the socket stays open. */
export const ServerErrorEvent = z.object({
  kind: z.literal("ServerErrorEvent"),
  code: z.string(),
  detail: z.unknown(),
});
export type ServerErrorEvent = z.infer<typeof ServerErrorEvent>;

/** First WebSocket frame when the session key is given neither in the query nor a header. */
export const SocketAuthFrame = z.object({
  type: z.literal("auth"),
  session_api_key: z.string(),
});
export type SocketAuthFrame = z.infer<typeof SocketAuthFrame>;
