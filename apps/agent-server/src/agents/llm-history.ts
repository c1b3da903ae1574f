import type { ActionEvent, AgentEvent, ContentItem } from "@sandbox-server/agent-contracts";
import type { ChatMessage, ChatPart, ChatToolCall } from "./chat-completions";

const INTERRUPTED = "[No result: the call was interrupted.]";

/**
 * Replays a conversation's events as chat messages. The calls of one LLM answer become one
 * assistant message followed by their tool results; results that never came (pause, restart)
 * are filled in, and tool-call errors are told after the results, as the API requires.
 */
export function buildChatMessages(
  systemPrompt: string,
  events: readonly AgentEvent[],
): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: systemPrompt }];
  let turn: { responseId: string | null; message: { tool_calls: ChatToolCall[] } } | undefined;
  let awaiting = new Set<string>();
  let deferred: ChatMessage[] = [];

  const closeTurn = () => {
    for (const id of awaiting)
      messages.push({ role: "tool", tool_call_id: id, content: INTERRUPTED });
    messages.push(...deferred);
    turn = undefined;
    awaiting = new Set();
    deferred = [];
  };

  for (const event of events) {
    switch (event.kind) {
      case "ActionEvent": {
        const call = toolCallOf(event);
        const responseId = event.llm_response_id ?? null;
        if (!turn || responseId === null || turn.responseId !== responseId) {
          closeTurn();
          const thought = event.thought.map((item) => item.text).join("\n");
          const message = {
            role: "assistant" as const,
            content: thought || null,
            tool_calls: [call],
          };
          messages.push(message);
          turn = { responseId, message };
        } else {
          turn.message.tool_calls.push(call);
        }
        awaiting.add(call.id);
        break;
      }
      case "ObservationEvent": {
        if (!awaiting.delete(event.tool_call_id)) break;
        const text = event.observation.content.map((item) => item.text).join("\n");
        messages.push({ role: "tool", tool_call_id: event.tool_call_id, content: text });
        break;
      }
      case "AgentErrorEvent": {
        const note: ChatMessage = { role: "user", content: `[Tool call failed: ${event.error}]` };
        if (turn) deferred.push(note);
        else messages.push(note);
        break;
      }
      case "MessageEvent": {
        closeTurn();
        const parts = event.llm_message.content.flatMap(toChatParts);
        if (event.source === "user") messages.push({ role: "user", content: parts });
        else messages.push({ role: "assistant", content: textOf(event.llm_message.content) });
        break;
      }
      default:
        // State updates and conversation errors are for clients, not for the model.
        break;
    }
  }
  closeTurn();
  return messages;
}

function toolCallOf(event: ActionEvent): ChatToolCall {
  const call = event.tool_call ?? {
    id: event.tool_call_id,
    name: event.tool_name,
    arguments: JSON.stringify({ command: event.action.command ?? "" }),
  };
  return {
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  };
}

function toChatParts(item: ContentItem): ChatPart[] {
  return item.type === "text"
    ? [{ type: "text", text: item.text }]
    : item.image_urls.map((url) => ({ type: "image_url", image_url: { url } }));
}

function textOf(content: readonly ContentItem[]): string {
  return content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n");
}
