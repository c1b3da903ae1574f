import type {
  AgentEvent,
  ConversationErrorEvent,
  ConversationInfo,
  EventPage,
  ObservationEvent,
} from "@sandbox-server/agent-contracts";
import { AgentEvent as AgentEventSchema } from "@sandbox-server/agent-contracts";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ScriptedReply,
  startFakeLlm,
  textReply,
  toolCallReply,
} from "../../test/fake-llm-server";
import { startTestServer, type TestServer, waitForStatus } from "../../test/harness";

const AgentEventList = AgentEventSchema.array();

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  script: ScriptedReply[],
  options: {
    llmApiKey?: string;
    agent?: (baseUrl: string) => Record<string, unknown>;
    max_iterations?: number;
  } = {},
) {
  const llm = await startFakeLlm(script);
  cleanups.push(llm.close);
  const server = await startTestServer({ llmApiKey: options.llmApiKey });
  cleanups.push(server.dispose);
  const agent = options.agent?.(llm.baseUrl) ?? {
    kind: "llm",
    model: "scripted-model",
    base_url: llm.baseUrl,
  };
  const created = await server.api<ConversationInfo>("POST", "/api/conversations", {
    agent,
    max_iterations: options.max_iterations,
    initial_message: { content: [{ type: "text", text: "list the files" }], run: true },
  });
  expect(created.status).toBe(201);
  return { llm, server, id: created.body.id };
}

async function eventsOf(server: TestServer, id: string): Promise<AgentEvent[]> {
  return (await server.api<EventPage>("GET", `/api/conversations/${id}/events/search`)).body.items;
}

const summary = (events: AgentEvent[]) =>
  events.map((event) =>
    event.kind === "ConversationStateUpdateEvent"
      ? `status:${event.value}`
      : `${event.kind}${"tool_name" in event && event.tool_name ? `:${event.tool_name}` : ""}`,
  );

describe("llm agent", () => {
  it("runs a tool call, feeds the observation back, and stops at finish", async () => {
    const { llm, server, id } = await setup(
      [
        toolCallReply("terminal", { command: "echo from-llm" }, "Let me look."),
        toolCallReply("finish", { message: "All done." }),
      ],
      { llmApiKey: "env-key" },
    );
    await waitForStatus(server, id, "finished");
    const events = await eventsOf(server, id);
    expect(summary(events)).toEqual([
      "MessageEvent",
      "status:running",
      "ActionEvent:terminal",
      "ObservationEvent:terminal",
      "ActionEvent:finish",
      "ObservationEvent:finish",
      "MessageEvent",
      "status:finished",
    ]);
    // Every stored event fits the shared contract the control plane reads them with.
    expect(AgentEventList.safeParse(events).error).toBeUndefined();
    expect(events[2]).toMatchObject({
      thought: [{ type: "text", text: "Let me look." }],
      action: { command: "echo from-llm" },
    });
    expect((events[3] as ObservationEvent).observation.content[0]?.text).toBe("from-llm");
    expect(events[6]).toMatchObject({
      source: "agent",
      llm_message: { content: [{ type: "text", text: "All done." }] },
    });

    expect(llm.requests).toHaveLength(2);
    const [first, second] = llm.requests;
    expect(first?.headers.authorization).toBe("Bearer env-key");
    expect(first?.body.model).toBe("scripted-model");
    expect(first?.body.tools.map((tool) => tool.function.name)).toEqual(["terminal", "finish"]);
    expect(second?.body.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
    expect(second?.body.messages[3]).toMatchObject({
      tool_call_id: events[2] && "tool_call_id" in events[2] ? events[2].tool_call_id : "",
      content: "from-llm",
    });

    const info = await server.api<ConversationInfo>("GET", `/api/conversations/${id}`);
    expect(info.body.stats.usage_to_metrics.agent).toMatchObject({
      llm_calls: 2,
      prompt_tokens: 20,
      completion_tokens: 10,
    });
  });

  it("ends its turn on a plain answer and reports invalid tool calls to the model", async () => {
    const { llm, server, id } = await setup([
      toolCallReply("teleport", {}),
      textReply("Nothing to do."),
    ]);
    await waitForStatus(server, id, "finished");
    expect(summary(await eventsOf(server, id))).toEqual([
      "MessageEvent",
      "status:running",
      "AgentErrorEvent:teleport",
      "MessageEvent",
      "status:finished",
    ]);
    const replay = llm.requests[1]?.body.messages.at(-1);
    expect(replay).toMatchObject({
      role: "user",
      content: expect.stringContaining("unknown tool"),
    });
  });

  it("turns an LLM error into a ConversationErrorEvent and status error, then can run again", async () => {
    const { llm, server, id } = await setup([
      { status: 500, body: { error: "boom" } },
      textReply("Recovered."),
    ]);
    await waitForStatus(server, id, "error");
    const events = await eventsOf(server, id);
    const error = events.find(
      (event): event is ConversationErrorEvent => event.kind === "ConversationErrorEvent",
    );
    expect(error).toMatchObject({ code: "LLMError", detail: expect.stringContaining("HTTP 500") });
    expect((await server.api("GET", "/health")).status).toBe(200);

    await server.api("POST", `/api/conversations/${id}/run`);
    await waitForStatus(server, id, "finished");
    expect(llm.requests).toHaveLength(2);
  });

  it("stops after max_iterations model calls", async () => {
    const { llm, server, id } = await setup([toolCallReply("terminal", { command: "true" })], {
      max_iterations: 3,
    });
    await waitForStatus(server, id, "error");
    expect(llm.requests).toHaveLength(3);
    const events = await eventsOf(server, id);
    expect(events.filter((event) => event.kind === "ActionEvent")).toHaveLength(3);
    expect(events.at(-2)).toMatchObject({
      kind: "ConversationErrorEvent",
      code: "MaxIterationsReached",
    });
  });

  it("runs the OpenHands agent shape with its own api_key when the server has none", async () => {
    const { llm, server, id } = await setup([textReply("Hi.")], {
      agent: (baseUrl) => ({
        kind: "Agent",
        llm: { model: "oh-model", api_key: "spec-key", base_url: baseUrl },
        tools: [],
      }),
    });
    await waitForStatus(server, id, "finished");
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer spec-key");
    expect(llm.requests[0]?.body.model).toBe("oh-model");
  });
});
