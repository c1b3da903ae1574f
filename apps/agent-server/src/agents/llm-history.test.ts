import type { AgentEvent } from "@sandbox-server/agent-contracts";
import { describe, expect, it } from "vitest";
import { buildChatMessages } from "./llm-history";

let counter = 0;
const base = () => ({ id: `e${++counter}`, timestamp: "2025-01-01T00:00:00.000000Z" });

const user = (text: string): AgentEvent => ({
  ...base(),
  kind: "MessageEvent",
  source: "user",
  llm_message: { role: "user", content: [{ type: "text", text }] },
});
const action = (callId: string, responseId: string, command: string): AgentEvent => ({
  ...base(),
  kind: "ActionEvent",
  source: "agent",
  tool_name: "terminal",
  tool_call_id: callId,
  action: { kind: "TerminalAction", command },
  thought: [],
  llm_response_id: responseId,
  tool_call: { id: callId, name: "terminal", arguments: JSON.stringify({ command }) },
});
const observation = (callId: string, text: string): AgentEvent => ({
  ...base(),
  kind: "ObservationEvent",
  source: "environment",
  tool_name: "terminal",
  tool_call_id: callId,
  action_id: "a",
  observation: { kind: "TerminalObservation", content: [{ type: "text", text }], is_error: false },
});

describe("buildChatMessages", () => {
  it("groups the calls of one answer into one assistant message followed by their results", () => {
    const messages = buildChatMessages("sys", [
      user("go"),
      action("c1", "r1", "ls"),
      observation("c1", "a.txt"),
      action("c2", "r1", "pwd"),
      observation("c2", "/w"),
    ]);
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
    ]);
    const assistant = messages[2];
    expect(assistant?.role === "assistant" && assistant.tool_calls?.map((call) => call.id)).toEqual(
      ["c1", "c2"],
    );
  });

  it("fills in results that never came and tells tool errors after the results", () => {
    const messages = buildChatMessages("sys", [
      user("go"),
      action("c1", "r1", "sleep 100"),
      {
        ...base(),
        kind: "AgentErrorEvent",
        source: "agent",
        error: "bad call",
        tool_name: "x",
        tool_call_id: "c2",
      },
      user("again"),
    ]);
    expect(messages.slice(2)).toEqual([
      expect.objectContaining({ role: "assistant" }),
      { role: "tool", tool_call_id: "c1", content: "[No result: the call was interrupted.]" },
      { role: "user", content: "[Tool call failed: bad call]" },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ]);
  });

  it("sends images as image_url parts and skips state updates", () => {
    const messages = buildChatMessages("sys", [
      {
        ...base(),
        kind: "MessageEvent",
        source: "user",
        llm_message: {
          role: "user",
          content: [{ type: "image", image_urls: ["http://x/a.png", "http://x/b.png"] }],
        },
      },
      {
        ...base(),
        kind: "ConversationStateUpdateEvent",
        source: "environment",
        key: "execution_status",
        value: "running",
      },
    ]);
    expect(messages).toEqual([
      { role: "system", content: "sys" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "http://x/a.png" } },
          { type: "image_url", image_url: { url: "http://x/b.png" } },
        ],
      },
    ]);
  });
});
