import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEvent, readEvents, waitForExecution } from "./agent";
import { startTestServer, type TestServer } from "./harness";
import { waitUntil } from "./receiver";

let t: TestServer;
let alice: string;
let bob: string;
beforeAll(async () => {
  t = await startTestServer({
    config: { followerReconnectBaseMs: 50, followerReconnectMaxMs: 500 },
  });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});
afterAll(async () => {
  await t.close();
});

const message = (text: string, run = true) => ({
  role: "user",
  content: [{ type: "text", text }],
  run,
});

async function createConversation(body: Record<string, unknown> = {}) {
  const res = await t.api("POST", "/api/v1/app-conversations", { key: alice, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as {
    id: string;
    sandbox_id: string;
    conversation_url: string;
    session_api_key: string;
  };
}

async function storedEvents(id: string, query = "", key = alice): Promise<AgentEvent[]> {
  const items: AgentEvent[] = [];
  let pageId: string | null = null;
  do {
    const page: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
    const res = await t.api(
      "GET",
      `/api/v1/app-conversations/${id}/events?limit=100${query}${page}`,
      {
        key,
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.items);
    pageId = res.body.next_page_id;
  } while (pageId);
  return items;
}

/** Waits until the control plane holds exactly the agent server's events, in its order. */
async function expectStoredMatchesAgent(conv: {
  id: string;
  conversation_url: string;
  session_api_key: string;
}) {
  const agent = await readEvents(conv.conversation_url, conv.session_api_key);
  const ids = (events: AgentEvent[]) => events.map((e) => e.id);
  const stored = await waitUntil(
    async () => {
      const events = await storedEvents(conv.id);
      return events.length >= agent.length ? events : null;
    },
    () => `stored events of ${conv.id} did not reach ${agent.length}`,
  );
  expect(ids(stored)).toEqual(ids(agent));
  expect(stored).toEqual(agent);
  return stored;
}

describe("stored conversation events", () => {
  it("stores every event (those before the follower connected too) and keeps metadata current", async () => {
    const conv = await createConversation({ initial_message: message("echo hello events") });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const stored = await expectStoredMatchesAgent(conv);
    expect(stored.map((e) => e.kind)).toContain("ObservationEvent");

    const read = await t.api("GET", `/api/v1/app-conversations/${conv.id}`, { key: alice });
    expect(read.body.title).toBe("echo hello events");
    // The list reads the stored record only: execution_status there comes from the events.
    const list = await t.api("GET", `/api/v1/app-conversations?sandbox_id=${conv.sandbox_id}`, {
      key: alice,
    });
    expect(list.body.items[0]).toMatchObject({ id: conv.id, execution_status: "finished" });
    const last = stored[stored.length - 1];
    expect(Date.parse(list.body.items[0].updated_at)).toBeGreaterThanOrEqual(
      Math.floor(Date.parse(last?.timestamp ?? "") / 1000) * 1000,
    );
  });

  it("follows a conversation added to a running sandbox; titles are shortened, given ones kept", async () => {
    const first = await createConversation({ title: "given title" });
    const long = `echo ${"x".repeat(200)}`;
    const added = await createConversation({ sandbox_id: first.sandbox_id });
    for (const conv of [first, added]) {
      const res = await t.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
        key: alice,
        body: message(long),
      });
      expect(res.status).toBe(200);
      await waitForExecution(conv.conversation_url, conv.session_api_key);
      await expectStoredMatchesAgent(conv);
    }
    const title = async (id: string) =>
      (await t.api("GET", `/api/v1/app-conversations/${id}`, { key: alice })).body.title;
    expect(await title(first.id)).toBe("given title");
    const shortened = await title(added.id);
    expect(shortened.length).toBeLessThanOrEqual(80);
    expect(shortened.endsWith("…")).toBe(true);
    expect(long.startsWith(shortened.slice(0, -1))).toBe(true);
  });

  it("pages, filters by kind, sorts, and is the owner's only", async () => {
    const conv = await createConversation({ initial_message: message("echo paging") });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const all = await expectStoredMatchesAgent(conv);

    const pages: AgentEvent[][] = [];
    let pageId: string | null = null;
    do {
      const q: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
      const res = await t.api("GET", `/api/v1/app-conversations/${conv.id}/events?limit=2${q}`, {
        key: alice,
      });
      pages.push(res.body.items);
      pageId = res.body.next_page_id;
    } while (pageId);
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    expect(pages.flat()).toEqual(all);

    expect(await storedEvents(conv.id, "&sort_order=TIMESTAMP_DESC")).toEqual([...all].reverse());
    const messages = await storedEvents(conv.id, "&kind=MessageEvent");
    expect(messages).toEqual(all.filter((e) => e.kind === "MessageEvent"));
    expect(messages.map((e) => e.source)).toEqual(["user", "agent"]);

    const viaTrpc = await t.trpc("query", "events.search", { id: conv.id, limit: 100 }, alice);
    expect(viaTrpc.body.items).toEqual(all);

    const path = `/api/v1/app-conversations/${conv.id}/events`;
    expect((await t.api("GET", path, { key: bob })).status).toBe(404);
    expect((await t.api("GET", path, { key: bob })).body.code).toBe("CONVERSATION_NOT_FOUND");
    const unknown = `/api/v1/app-conversations/${crypto.randomUUID()}/events`;
    expect((await t.api("GET", unknown, { key: alice })).status).toBe(404);
    expect(
      (await t.api("GET", "/api/v1/app-conversations/nope/events", { key: alice })).status,
    ).toBe(422);
    expect((await t.api("GET", `${path}?page_id=junk`, { key: alice })).status).toBe(422);
    expect((await t.api("GET", `${path}?sort_order=NEWEST`, { key: alice })).status).toBe(422);
  });
});

describe("following across pause, restart and deletion", () => {
  it("stops while paused and resumes after, without gaps or duplicates", async () => {
    const conv = await createConversation();
    const follower = () => t.server.core.follower;
    // Following starts in the background once the conversation exists (on PostgreSQL a read later).
    await expect.poll(() => follower().isFollowing(conv.id)).toBe(true);
    // A command that is still running when the sandbox pauses: its output lands after resume.
    await t.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
      key: alice,
      body: message("sleep 0.3; echo after-pause"),
    });
    await waitUntil(
      async () => (await storedEvents(conv.id)).some((e) => e.kind === "ActionEvent"),
      () => "the action was not stored",
    );
    const paused = await t.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/pause`, {
      key: alice,
    });
    expect(paused.body.status).toBe("PAUSED");
    expect(follower().isFollowing(conv.id)).toBe(false);
    const whilePaused = await storedEvents(conv.id);
    expect(whilePaused.length).toBeGreaterThan(0);

    const resumed = await t.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/resume`, {
      key: alice,
    });
    expect(resumed.body.status).toBe("RUNNING");
    await expect.poll(() => follower().isFollowing(conv.id)).toBe(true);
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    await t.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
      key: alice,
      body: message("echo after-resume"),
    });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const stored = await expectStoredMatchesAgent(conv);
    expect(JSON.stringify(stored)).toContain("after-pause");
    expect(JSON.stringify(stored)).toContain("after-resume");
  });

  it("picks up events made while the control plane was down", async () => {
    const conv = await createConversation({ initial_message: message("echo before") });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    await expectStoredMatchesAgent(conv);
    await t.server.close();
    // Straight to the agent server while nobody follows: only a resume can bring these in.
    for (const text of ["echo during-one", "echo during-two"]) {
      const res = await fetch(`${conv.conversation_url}/events`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-session-api-key": conv.session_api_key },
        body: JSON.stringify(message(text)),
      });
      expect(res.status).toBe(200);
      await waitForExecution(conv.conversation_url, conv.session_api_key);
    }
    await t.restart();
    const stored = await expectStoredMatchesAgent(conv);
    expect(JSON.stringify(stored)).toContain("during-two");
  });

  it("keeps serving the events of an archived conversation", async () => {
    const conv = await createConversation({ initial_message: message("echo keep me") });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const before = await expectStoredMatchesAgent(conv);
    expect(
      (await t.api("DELETE", `/api/v1/sandboxes/${conv.sandbox_id}`, { key: alice })).status,
    ).toBe(200);
    expect(t.server.core.follower.isFollowing(conv.id)).toBe(false);
    const read = await t.api("GET", `/api/v1/app-conversations/${conv.id}`, { key: alice });
    expect(read.body.archived).toBe(true);
    expect(await storedEvents(conv.id)).toEqual(before);
  });
});
