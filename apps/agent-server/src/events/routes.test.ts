import { randomUUID } from "node:crypto";
import type {
  AgentEvent,
  ConversationInfo,
  EventPage,
  MessageEvent,
} from "@sandbox-server/agent-contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  collectPages,
  listEvents,
  sendText,
  startWithConversation,
  type TestServer,
} from "../../test/harness";

let server: TestServer;
let id: string;
beforeEach(async () => {
  ({ server, id } = await startWithConversation());
});
afterEach(() => server.dispose());

const events = () => `/api/conversations/${id}/events`;
const say = (text: string) => sendText(server, id, text);
const allEvents = (query = "") => listEvents(server, id, query);

describe("POST .../events", () => {
  it("appends a user MessageEvent and does not run by default", async () => {
    expect(await say("echo hello")).toEqual({ status: 200, body: { success: true } });
    const [event, ...rest] = await allEvents();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({
      kind: "MessageEvent",
      source: "user",
      llm_message: { role: "user", content: [{ type: "text", text: "echo hello" }] },
    });
    expect(event?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await server.api<ConversationInfo>("GET", `/api/conversations/${id}`)).body.execution_status,
    ).toBe("idle");
  });

  it("accepts a single TextContent object and images, stored as a list", async () => {
    await server.api("POST", events(), { role: "user", content: { type: "text", text: "one" } });
    await server.api("POST", events(), {
      content: [{ type: "image", image_urls: ["data:image/png;base64,AA=="] }],
    });
    const [first, second] = (await allEvents()) as MessageEvent[];
    expect(first?.llm_message.content).toEqual([{ type: "text", text: "one" }]);
    expect(second?.llm_message.content).toEqual([
      { type: "image", image_urls: ["data:image/png;base64,AA=="] },
    ]);
  });

  it.each([
    ["a role other than user", { role: "assistant", content: [{ type: "text", text: "x" }] }],
    ["empty content", { content: [] }],
    ["empty text", { content: [{ type: "text", text: "" }] }],
    ["a non-boolean run", { content: [{ type: "text", text: "x" }], run: "yes" }],
  ])("answers 422 for %s", async (_name, body) => {
    const response = await server.api<{ detail: unknown[] }>("POST", events(), body);
    expect(response.status).toBe(422);
    expect(Array.isArray(response.body.detail)).toBe(true);
  });

  it("answers 422 on malformed JSON and 404 for an unknown conversation", async () => {
    expect((await server.api("POST", events(), "{")).status).toBe(422);
    const unknown = await server.api("POST", `/api/conversations/${randomUUID()}/events`, {
      content: [{ type: "text", text: "x" }],
    });
    expect(unknown.status).toBe(404);
  });
});

describe("GET .../events/search, count, get", () => {
  async function seed() {
    for (const text of ["alpha one", "beta two", "ALPHA three", "gamma four", "delta five"])
      await say(text);
    return allEvents();
  }

  const pageThrough = async (query: string) =>
    (await collectPages(server, `${events()}/search?limit=2&${query}`)).ids;

  it("pages in both orders across page boundaries", async () => {
    const ids = (await seed()).map((event) => event.id);
    expect(await pageThrough("sort_order=TIMESTAMP")).toEqual(ids);
    expect(await pageThrough("sort_order=TIMESTAMP_DESC")).toEqual([...ids].reverse());
    const first = await server.api<EventPage>("GET", `${events()}/search?limit=2`);
    expect(first.body.next_page_id).toBe(ids[2]);
  });

  it("filters by kind (short or dotted), source, body and time range", async () => {
    const seeded = await seed();
    await server.api("POST", `/api/conversations/${id}/pause`);
    expect(await allEvents("kind=ConversationStateUpdateEvent")).toHaveLength(1);
    expect(await allEvents("kind=openhands.sdk.event.MessageEvent")).toHaveLength(5);
    expect(await allEvents("source=environment")).toHaveLength(1);
    expect(await allEvents("source=user&kind=MessageEvent")).toHaveLength(5);
    const alpha = await allEvents("body=alpha");
    expect(alpha.map((event) => event.id)).toEqual([seeded[0]?.id, seeded[2]?.id]);

    const from = seeded[1]?.timestamp ?? "";
    const to = seeded[3]?.timestamp ?? "";
    const range = await allEvents(`timestamp__gte=${from}&timestamp__lt=${to}`);
    expect(range.map((event) => event.id)).toEqual([seeded[1]?.id, seeded[2]?.id]);
    const count = await server.api(
      "GET",
      `${events()}/count?timestamp__gte=${from}&timestamp__lt=${to}`,
    );
    expect(count.body).toBe(2);
  });

  it("counts with the same filters", async () => {
    await seed();
    expect((await server.api("GET", `${events()}/count`)).body).toBe(5);
    expect((await server.api("GET", `${events()}/count?body=ALPHA`)).body).toBe(2);
    expect((await server.api("GET", `${events()}/count?source=agent`)).body).toBe(0);
  });

  it("rejects bad filters", async () => {
    expect((await server.api("GET", `${events()}/search?sort_order=NEWEST`)).status).toBe(422);
    expect((await server.api("GET", `${events()}/search?source=robot`)).status).toBe(422);
    expect((await server.api("GET", `${events()}/search?timestamp__gte=yesterday`)).status).toBe(
      422,
    );
    expect((await server.api("GET", `${events()}/count?timestamp__lt=13`)).status).toBe(422);
  });

  it("gets one event; 404 when unknown", async () => {
    const [event] = await seed();
    const fetched = await server.api<AgentEvent>("GET", `${events()}/${event?.id}`);
    expect(fetched).toEqual({ status: 200, body: event });
    const missing = await server.api("GET", `${events()}/${randomUUID()}`);
    expect(missing).toEqual({ status: 404, body: { detail: "Event not found" } });
  });
});
