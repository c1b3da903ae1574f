import type { ConversationEvent } from "../src/events/contracts";
import type { Caller } from "./harness";
import { pollUntil } from "./wait";

/** The text of a stored agent MessageEvent (what the shell agent answers), else null. */
export function agentReplyText(event: ConversationEvent): string | null {
  if (event.kind !== "MessageEvent" || event.source !== "agent") return null;
  const message = (event as { llm_message?: { content?: { type?: string; text?: string }[] } })
    .llm_message;
  const first = message?.content?.[0];
  return first?.type === "text" && typeof first.text === "string" ? first.text : null;
}

/** The agent's replies in a conversation, oldest first, as the control plane has stored them. */
export async function agentReplies(caller: Caller, conversationId: string): Promise<string[]> {
  const page = await caller.events.search({ id: conversationId, kind: "MessageEvent" });
  return page.items.flatMap((event) => {
    const text = agentReplyText(event);
    return text === null ? [] : [text];
  });
}

/** Waits (bounded) until the control plane has stored an agent reply containing `text`. */
export function waitForReply(caller: Caller, conversationId: string, text: string) {
  return pollUntil(
    () => agentReplies(caller, conversationId),
    (replies) => replies.some((reply) => reply.includes(text)),
    `no agent reply containing ${JSON.stringify(text)} in ${conversationId}`,
  );
}

/** A user message the shell agent runs as a command. */
export function command(text: string) {
  return { role: "user" as const, content: [{ type: "text" as const, text }], run: true };
}

type ListAnswer = Awaited<ReturnType<Caller["conversations"]["list"]>>;

/** `conversations.list` answers a page unless it was asked for `ids` (then an array). */
export function listPage(answer: ListAnswer): Exclude<ListAnswer, unknown[]> {
  if (Array.isArray(answer)) throw new Error("conversations.list answered a batch, not a page");
  return answer;
}
