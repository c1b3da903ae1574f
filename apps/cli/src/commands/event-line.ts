import type { ConversationEvent } from "@sandbox-server/client";

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** The text items of a content list (TextContent), joined; images as `[image]`. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((item) => {
      const part = record(item);
      if (part.type === "image") return "[image]";
      return typeof part.text === "string" ? part.text : "";
    })
    .join("\n")
    .trimEnd();
}

/** What a person wants to see of an event, by kind; unknown kinds show their kind alone. */
export function eventSummary(event: ConversationEvent): string {
  switch (event.kind) {
    case "MessageEvent":
      return contentText(record(event.llm_message).content);
    case "ActionEvent": {
      const action = record(event.action);
      return typeof action.command === "string"
        ? `$ ${action.command}`
        : String(event.tool_name ?? action.kind ?? "");
    }
    case "ObservationEvent": {
      const observation = record(event.observation);
      const exit = observation.exit_code;
      const text = contentText(observation.content);
      return typeof exit === "number" ? `${text}${text ? "\n" : ""}[exit ${exit}]` : text;
    }
    case "ConversationStateUpdateEvent":
      return event.key === "full_state"
        ? "full state"
        : `${String(event.key)} = ${JSON.stringify(event.value)}`;
    case "AgentErrorEvent":
      return String(event.error ?? "");
    case "ConversationErrorEvent":
      return `${String(event.code ?? "")}: ${String(event.detail ?? "")}`;
    default:
      return "";
  }
}

/** `09:42:01  agent        MessageEvent  hello`, continuation lines indented under the text. */
export function eventLine(event: ConversationEvent): string {
  const time = event.timestamp.slice(11, 19);
  const head = `${time}  ${event.source.padEnd(11)}  ${event.kind.padEnd(28)}  `;
  const [first = "", ...rest] = eventSummary(event).split("\n");
  const indent = " ".repeat(head.length);
  return [`${head}${first}`.trimEnd(), ...rest.map((line) => `${indent}${line}`)].join("\n");
}
