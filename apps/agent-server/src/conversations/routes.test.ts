import { randomUUID } from "node:crypto";
import path from "node:path";
import {
  ConversationInfo,
  type ConversationPage,
  type EventPage,
} from "@sandbox-server/agent-contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  collectPages,
  createConversation,
  startTestServer,
  type TestServer,
  waitForStatus,
} from "../../test/harness";

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(() => server.dispose());

const shell = { kind: "shell" };

const create = (body: Record<string, unknown> = {}) => createConversation(server, body);

describe("POST /api/conversations", () => {
  it("creates a conversation with defaults", async () => {
    const info = await create({ tags: { team: "a" } });
    expect(info).toMatchObject({
      agent: shell,
      execution_status: "idle",
      title: null,
      tags: { team: "a" },
      max_iterations: 500,
      workspace: { working_dir: server.workspaceDir },
    });
    expect(ConversationInfo.safeParse(info).error).toBeUndefined();
    expect(info.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(info.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("is idempotent on conversation_id: 200 with the existing conversation", async () => {
    const id = randomUUID();
    const first = await create({ conversation_id: id, tags: { n: "1" } });
    const again = await server.api<ConversationInfo>("POST", "/api/conversations", {
      conversation_id: id.toUpperCase(),
      agent: shell,
      tags: { n: "2" },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
  });

  it("resolves a relative working_dir in the workspace and ignores extra workspace keys", async () => {
    const info = await create({ workspace: { working_dir: "sub/dir", kind: "LocalWorkspace" } });
    expect(info.workspace).toEqual({
      kind: "LocalWorkspace",
      working_dir: path.join(server.workspaceDir, "sub/dir"),
    });
  });

  it("accepts the OpenHands agent shape and masks its api_key", async () => {
    const agent = {
      kind: "Agent",
      llm: {
        model: "gpt-x",
        api_key: "sk-secret",
        base_url: "http://127.0.0.1:1/v1",
        usage_id: "agent",
      },
      tools: [{ name: "TerminalTool" }],
    };
    const info = await create({ agent });
    expect(info.agent).toEqual({ ...agent, llm: { ...agent.llm, api_key: "**********" } });
    const fetched = await server.api<ConversationInfo>("GET", `/api/conversations/${info.id}`);
    expect(JSON.stringify(fetched.body)).not.toContain("sk-secret");
  });

  it("runs an initial message without run (as OpenHands' clients send it); run: false only appends", async () => {
    const info = await create({
      initial_message: { content: [{ type: "text", text: "echo hi" }] },
    });
    await waitForStatus(server, info.id, "finished");
    const events = await server.api<{ items: { kind: string; source: string }[] }>(
      "GET",
      `/api/conversations/${info.id}/events/search`,
    );
    const kinds = events.body.items.map((event) => `${event.source}:${event.kind}`);
    expect(kinds).toContain("user:MessageEvent");
    expect(kinds).toContain("agent:MessageEvent");
    const held = await create({
      initial_message: { content: [{ type: "text", text: "echo hi" }], run: false },
    });
    const count = await server.api("GET", `/api/conversations/${held.id}/events/count`);
    expect(count.body).toBe(1);
    expect(
      (await server.api<ConversationInfo>("GET", `/api/conversations/${held.id}`)).body
        .execution_status,
    ).toBe("idle");
  });

  it.each([
    ["no agent", {}],
    ["an unknown agent kind", { agent: { kind: "robot" } }],
    ["an llm agent without model", { agent: { kind: "llm" } }],
    ["a bad conversation_id", { agent: shell, conversation_id: "not-a-uuid" }],
    ["max_iterations below 1", { agent: shell, max_iterations: 0 }],
  ])("answers 422 with issues for %s", async (_name, body) => {
    const response = await server.api<{ detail: { loc: unknown[] }[] }>(
      "POST",
      "/api/conversations",
      body,
    );
    expect(response.status).toBe(422);
    expect(response.body.detail.length).toBeGreaterThan(0);
    expect(response.body.detail[0]?.loc[0]).toBe("body");
  });

  it("answers 422 on malformed JSON", async () => {
    const response = await server.api("POST", "/api/conversations", "{not json");
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [expect.objectContaining({ type: "json_invalid" })] });
  });
});

describe("search, count and batch get", () => {
  const searchAll = (query: string) =>
    collectPages(server, `/api/conversations/search?limit=2&${query}`);

  it("pages across page boundaries in both orders without gaps or repeats", async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await create()).id);

    const ascending = await searchAll("sort_order=CREATED_AT");
    expect(ascending).toEqual({ ids: created, pages: 3 });
    const descending = await searchAll("");
    expect(descending.ids).toEqual([...created].reverse());

    const page = await server.api<ConversationPage>("GET", "/api/conversations/search?limit=2");
    expect(page.body.next_page_id).toBe(created[2]);
  });

  it("filters by status, counts, and sorts by updated_at", async () => {
    const [a, b, c] = [await create(), await create(), await create()];
    await server.api("POST", `/api/conversations/${b.id}/pause`);
    await server.api("PATCH", `/api/conversations/${a.id}`, { title: "touched" });

    const paused = await server.api<ConversationPage>(
      "GET",
      "/api/conversations/search?status=paused",
    );
    expect(paused.body.items.map((item) => item.id)).toEqual([b.id]);
    expect((await server.api("GET", "/api/conversations/count")).body).toBe(3);
    expect((await server.api("GET", "/api/conversations/count?status=idle")).body).toBe(2);
    expect((await server.api("GET", "/api/conversations/count?execution_status=paused")).body).toBe(
      1,
    );

    const byUpdate = await server.api<ConversationPage>(
      "GET",
      "/api/conversations/search?sort_order=UPDATED_AT_DESC",
    );
    expect(byUpdate.body.items.map((item) => item.id)).toEqual([a.id, b.id, c.id]);
  });

  it("rejects bad paging and filters", async () => {
    expect((await server.api("GET", "/api/conversations/search?limit=101")).status).toBe(422);
    expect((await server.api("GET", "/api/conversations/search?limit=0")).status).toBe(422);
    expect((await server.api("GET", "/api/conversations/search?status=sleepy")).status).toBe(422);
    expect((await server.api("GET", "/api/conversations/search?sort_order=NAME")).status).toBe(422);
    expect(
      (await server.api("GET", `/api/conversations/search?page_id=${randomUUID()}`)).status,
    ).toBe(400);
  });

  it("gets several by id, in request order, null for unknown", async () => {
    const [a, b] = [await create(), await create()];
    const unknown = randomUUID();
    const response = await server.api<(ConversationInfo | null)[]>(
      "GET",
      `/api/conversations?ids=${b.id}&ids=${unknown}&ids=${a.id}`,
    );
    expect(response.body.map((item) => item?.id ?? null)).toEqual([b.id, null, a.id]);
    expect((await server.api("GET", "/api/conversations?ids=nope")).status).toBe(422);
  });
});

describe("one conversation", () => {
  it("gets it, 404 when unknown, 422 when the id is not a UUID", async () => {
    const info = await create();
    expect((await server.api("GET", `/api/conversations/${info.id}`)).body).toEqual(info);
    const upper = await server.api("GET", `/api/conversations/${info.id.toUpperCase()}`);
    expect(upper.body).toEqual(info);
    const missing = await server.api("GET", `/api/conversations/${randomUUID()}`);
    expect(missing).toEqual({ status: 404, body: { detail: "Conversation not found" } });
    expect((await server.api("GET", "/api/conversations/xyz")).status).toBe(422);
  });

  it("patches title and tags; 404 when unknown", async () => {
    const info = await create();
    const patched = await server.api("PATCH", `/api/conversations/${info.id}`, {
      title: "T",
      tags: { k: "v" },
    });
    expect(patched).toEqual({ status: 200, body: { success: true } });
    const after = await server.api<ConversationInfo>("GET", `/api/conversations/${info.id}`);
    expect(after.body).toMatchObject({ title: "T", tags: { k: "v" } });
    expect(after.body.updated_at > info.updated_at).toBe(true);
    const updates = await server.api<EventPage>(
      "GET",
      `/api/conversations/${info.id}/events/search`,
    );
    expect(updates.body.items.map((event) => "key" in event && [event.key, event.value])).toEqual([
      ["title", "T"],
      ["tags", { k: "v" }],
    ]);
    expect(
      (await server.api("PATCH", `/api/conversations/${randomUUID()}`, { title: "x" })).status,
    ).toBe(404);
    expect((await server.api("PATCH", `/api/conversations/${info.id}`, { tags: "x" })).status).toBe(
      422,
    );
  });

  it("deletes it and its files; 404 when unknown", async () => {
    const info = await create();
    expect(await server.api("DELETE", `/api/conversations/${info.id}`)).toEqual({
      status: 200,
      body: { success: true },
    });
    expect((await server.api("GET", `/api/conversations/${info.id}`)).status).toBe(404);
    expect((await server.api("DELETE", `/api/conversations/${info.id}`)).status).toBe(404);
  });

  it("runs, answers 409 while running, pauses", async () => {
    const info = await create({
      initial_message: { content: [{ type: "text", text: "sleep 30" }], run: false },
    });
    expect(await server.api("POST", `/api/conversations/${info.id}/run`)).toEqual({
      status: 200,
      body: { success: true },
    });
    const again = await server.api("POST", `/api/conversations/${info.id}/run`);
    expect(again).toEqual({ status: 409, body: { detail: "Conversation is already running" } });
    expect((await server.api("POST", `/api/conversations/${info.id}/pause`)).status).toBe(200);
    await waitForStatus(server, info.id, "paused");
    expect((await server.api("POST", `/api/conversations/${randomUUID()}/run`)).status).toBe(404);
    expect((await server.api("POST", `/api/conversations/${randomUUID()}/pause`)).status).toBe(404);
  });
});
