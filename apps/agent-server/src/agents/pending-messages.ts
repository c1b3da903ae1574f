import type { AgentEvent, MessageEvent } from "@sandbox-server/agent-contracts";
import type { Conversation } from "../conversations/conversation";

/** A user message the agent has not seen yet, with its index in the log. */
export interface PendingMessage {
  index: number;
  event: MessageEvent;
}

export function isUserMessage(event: AgentEvent): event is MessageEvent {
  return event.kind === "MessageEvent" && event.source === "user";
}

export function nextPendingMessage(conversation: Conversation): PendingMessage | undefined {
  const events = conversation.events();
  for (let index = conversation.cursor; index < events.length; index++) {
    const event = events[index];
    if (event && isUserMessage(event)) return { index, event };
  }
  return undefined;
}

/** The text items of a message, joined by newlines. */
export function messageText(event: MessageEvent): string {
  return event.llm_message.content
    .flatMap((item) => (item.type === "text" ? [item.text] : []))
    .join("\n");
}
