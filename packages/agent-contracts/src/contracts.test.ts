import { describe, expect, it } from "vitest";
import {
  AgentEvent,
  AgentSpec,
  CreateConversationRequest,
  contentItems,
  ExecuteBashRequest,
  SendMessageRequest,
} from "./index";

describe("SendMessageRequest", () => {
  it("applies no defaults: role and run stay absent when not sent", () => {
    const parsed = SendMessageRequest.parse({ content: [{ type: "text", text: "hi" }] });
    expect(parsed).toEqual({ content: [{ type: "text", text: "hi" }] });
    expect("role" in parsed).toBe(false);
    expect("run" in parsed).toBe(false);
  });

  it("accepts a single TextContent object and normalises it to a list", () => {
    const parsed = SendMessageRequest.parse({ role: "user", content: { type: "text", text: "x" } });
    expect(contentItems(parsed.content)).toEqual([{ type: "text", text: "x" }]);
  });

  it.each([
    [{ role: "assistant", content: [{ type: "text", text: "x" }] }],
    [{ content: [] }],
    [{ content: [{ type: "text", text: "" }] }],
    [{ content: [{ type: "image", image_urls: [] }] }],
    [{ content: [{ type: "text", text: "x" }], run: "yes" }],
  ])("rejects %j", (body) => {
    expect(SendMessageRequest.safeParse(body).success).toBe(false);
  });
});

describe("agents and workspaces", () => {
  it("keeps extra keys of an OpenHands agent, so a client reads back what it sent", () => {
    const agent = { kind: "Agent", llm: { model: "m", usage_id: "agent" }, condenser: null };
    expect(AgentSpec.parse(agent)).toEqual(agent);
    const request = CreateConversationRequest.parse({
      agent: { kind: "shell" },
      workspace: { kind: "LocalWorkspace", working_dir: "/w" },
    });
    expect(request.workspace).toEqual({ kind: "LocalWorkspace", working_dir: "/w" });
  });

  it("rejects an unknown agent kind and an id that is not 8-4-4-4-12 hex", () => {
    expect(AgentSpec.safeParse({ kind: "robot" }).success).toBe(false);
    const bad = CreateConversationRequest.safeParse({
      conversation_id: "x",
      agent: { kind: "shell" },
    });
    expect(bad.success).toBe(false);
  });
});

describe("events", () => {
  it("drop unknown fields on parse, so readers tolerate fields added later", () => {
    const event = {
      id: "e1",
      timestamp: "2025-01-02T03:04:05.123456Z",
      source: "environment",
      kind: "ConversationErrorEvent",
      code: "LLMError",
      detail: "down",
      added_later: 1,
    };
    const { added_later: _, ...known } = event;
    expect(AgentEvent.parse(event)).toEqual(known);
  });
});

describe("ExecuteBashRequest", () => {
  it("defaults the timeout to 300 s and bounds it", () => {
    expect(ExecuteBashRequest.parse({ command: "ls" }).timeout).toBe(300);
    expect(ExecuteBashRequest.safeParse({ command: "ls", timeout: 100_000 }).success).toBe(false);
  });
});
