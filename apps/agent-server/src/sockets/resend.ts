import { randomUUID } from "node:crypto";
import type { AgentEvent, ConversationStateUpdateEvent } from "@sandbox-server/agent-contracts";
import { nextInstant, parseTimestamp } from "../clock";
import type { Conversation } from "../conversations/conversation";
import { toPublicInfo } from "../conversations/conversation-view";

/** Which past events a new socket wants before the live ones. */
export type ResendRequest =
  | { mode: "none" }
  | { mode: "all" }
  | { mode: "since"; afterMicros: number };

/**
 * Reads `resend_mode=all|since` (+ `after_timestamp`) and the deprecated `resend_all=true`.
 * `since` is exclusive: events strictly after `after_timestamp`. Timestamps are unique within a
 * conversation, so passing the last timestamp seen resumes without a gap or a duplicate.
 */
export function readResendRequest(params: URLSearchParams): ResendRequest | { error: string } {
  const mode = params.get("resend_mode");
  if (mode === "all" || (mode === null && params.get("resend_all")?.toLowerCase() === "true")) {
    return { mode: "all" };
  }
  if (mode === "since") {
    const after = parseTimestamp(params.get("after_timestamp") ?? "");
    if (after === undefined) return { error: "resend_mode=since needs an ISO after_timestamp" };
    return { mode: "since", afterMicros: after };
  }
  if (mode === null || mode === "none") return { mode: "none" };
  return { error: "resend_mode must be all or since" };
}

export function pastEvents(
  conversation: Conversation,
  resend: ResendRequest,
): readonly AgentEvent[] {
  if (resend.mode === "none") return [];
  const events = conversation.events();
  if (resend.mode === "all") return events;
  return events.filter((event) => (parseTimestamp(event.timestamp) ?? 0) > resend.afterMicros);
}

/** Always the first frame: the whole ConversationInfo. Not stored in the event log. */
export function fullStateEvent(conversation: Conversation): ConversationStateUpdateEvent {
  return {
    id: randomUUID(),
    timestamp: nextInstant().iso,
    source: "environment",
    kind: "ConversationStateUpdateEvent",
    key: "full_state",
    value: toPublicInfo(conversation.info),
  };
}
