import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentEvent,
  normaliseEvent,
  openEventSocket,
  readEvents,
  waitForExecution,
} from "./agent";
import { addCommandSpec, killAgentServer, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let alice: string;
let bob: string;
beforeAll(async () => {
  t = await startTestServer();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});
afterAll(async () => {
  await t.close();
});

const message = (text: string, extra: Record<string, unknown> = {}) => ({
  role: "user",
  content: [{ type: "text", text }],
  ...extra,
});

async function createConversation(body: Record<string, unknown> = {}, key = alice) {
  const res = await t.api("POST", "/api/v1/app-conversations", { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

type Surface = "rest" | "trpc";
async function send(surface: Surface, id: string, body: unknown, key = alice) {
  if (surface === "rest") {
    return t.api("POST", `/api/v1/app-conversations/${id}/send-message`, { key, body });
  }
  const res = await t.trpc(
    "mutation",
    "conversations.sendMessage",
    { ...(body as object), conversation_id: id },
    key,
  );
  return res.status >= 400
    ? { status: res.status, body: { code: res.body.data.code, message: res.body.message } }
    : res;
}

describe("creating and reading conversations", () => {
  it("creates a conversation in a new RUNNING sandbox and delivers the initial message", async () => {
    const conv = await createConversation({
      title: "first",
      initial_message: message("echo hello-initial", { run: true }),
      metadata: { ticket: "T-1" },
    });
    expect(conv.sandbox_status).toBe("RUNNING");
    expect(conv.archived).toBe(false);
    expect(conv.conversation_url).toMatch(new RegExp(`/api/conversations/${conv.id}$`));
    expect(conv.metadata).toEqual({ ticket: "T-1" });
    expect(conv.agent).toEqual({ kind: "shell" });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const events = await readEvents(conv.conversation_url, conv.session_api_key);
    const agentReply = events.find((e) => e.kind === "MessageEvent" && e.source === "agent");
    expect(JSON.stringify(agentReply)).toContain("hello-initial");

    const read = await t.api("GET", `/api/v1/app-conversations/${conv.id}`, { key: alice });
    expect(read.status).toBe(200);
    expect(read.body.execution_status).toBe("finished");
    expect(read.body.session_api_key).toBe(conv.session_api_key);
    expect((await t.api("GET", `/api/v1/app-conversations/${conv.id}`, { key: bob })).status).toBe(
      404,
    );
  });

  it("adds a conversation to an existing sandbox and lists with filters and sort orders", async () => {
    const first = await createConversation({ title: "alpha one" });
    const second = await createConversation({ sandbox_id: first.sandbox_id, title: "beta two" });
    expect(second.sandbox_id).toBe(first.sandbox_id);
    const list = (q: string) => t.api("GET", `/api/v1/app-conversations?${q}`, { key: alice });
    const inSandbox = await list(`sandbox_id=${first.sandbox_id}&sort_order=CREATED_AT`);
    expect(inSandbox.body.items.map((c: { id: string }) => c.id)).toEqual([first.id, second.id]);
    const desc = await list(`sandbox_id=${first.sandbox_id}&sort_order=CREATED_AT_DESC&limit=1`);
    expect(desc.body.items.map((c: { id: string }) => c.id)).toEqual([second.id]);
    expect(desc.body.next_page_id).toBeTruthy();
    const titled = await list("title__contains=beta");
    expect(titled.body.items.map((c: { id: string }) => c.id)).toEqual([second.id]);
    expect((await list("archived=true")).body.items).toEqual([]);
    expect((await t.api("GET", "/api/v1/app-conversations", { key: bob })).body.items).toEqual([]);
    const others = await t.api("POST", "/api/v1/app-conversations", {
      key: bob,
      body: { sandbox_id: first.sandbox_id },
    });
    expect(others.status).toBe(404);
  });

  it("answers 503 with the reason when the sandbox cannot start, leaving nothing behind", async () => {
    const before = (await t.api("GET", "/api/v1/sandboxes/search", { key: bob })).body.items.length;
    await addCommandSpec(t, "broken", ["/bin/false"]);
    const res = await t.api("POST", "/api/v1/app-conversations", {
      key: bob,
      body: { sandbox_spec_id: "broken" },
    });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("SANDBOX_START_FAILED");
    expect(res.body.message).toMatch(/ERROR|start/i);
    const after = (await t.api("GET", "/api/v1/sandboxes/search", { key: bob })).body.items.length;
    expect(after).toBe(before);
    expect((await t.api("GET", "/api/v1/app-conversations", { key: bob })).body.items).toEqual([]);
  });
});

describe("send-message rules", () => {
  for (const surface of ["rest", "trpc"] as const) {
    describe(`over ${surface}`, () => {
      it("1. RUNNING: forwards the body and the agent server has the message", async () => {
        const conv = await createConversation();
        const res = await send(surface, conv.id, message(`echo via-${surface}`, { run: true }));
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true, sandbox_status: "RUNNING", message: null });
        await waitForExecution(conv.conversation_url, conv.session_api_key);
        const events = await readEvents(conv.conversation_url, conv.session_api_key);
        const user = events.filter((e) => e.kind === "MessageEvent" && e.source === "user");
        expect(user).toHaveLength(1);
        expect(user[0]?.llm_message.content).toEqual([
          { type: "text", text: `echo via-${surface}` },
        ]);
      });

      it("2. unknown or other user's conversation, or missing sandbox record: 404", async () => {
        const conv = await createConversation();
        expect((await send(surface, crypto.randomUUID(), message("x"))).status).toBe(404);
        const other = await send(surface, conv.id, message("x"), bob);
        expect(other.status).toBe(404);
        expect(other.body.code).toBe("CONVERSATION_NOT_FOUND");
        const repos = t.server.core.deps.repos;
        const orphan = {
          ...(await repos.conversations.get(conv.id))!,
          id: crypto.randomUUID(),
          sandboxId: "sb_gone",
        };
        await repos.conversations.insert(orphan);
        expect((await send(surface, orphan.id, message("x"))).status).toBe(404);
      });

      it("3. PAUSED, STARTING, STOPPING: 409 naming the status and the resume call", async () => {
        const conv = await createConversation();
        await t.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/pause`, { key: alice });
        const paused = await send(surface, conv.id, message("x"));
        expect(paused.status).toBe(409);
        expect(paused.body.code).toBe("SANDBOX_NOT_RUNNING");
        expect(paused.body.message).toContain("PAUSED");
        expect(paused.body.message).toContain(`/api/v1/sandboxes/${conv.sandbox_id}/resume`);
        const repos = t.server.core.deps.repos;
        for (const status of ["STARTING", "STOPPING"]) {
          await repos.sandboxes.update(conv.sandbox_id, { status });
          const res = await send(surface, conv.id, message("x"));
          expect(res.status).toBe(409);
          expect(res.body.message).toContain(status);
        }
        await repos.sandboxes.update(conv.sandbox_id, { status: "PAUSED" });
        await t.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/resume`, { key: alice });
        expect((await send(surface, conv.id, message("echo back"))).status).toBe(200);
      });

      it("4. archived (sandbox deleted): 410", async () => {
        const conv = await createConversation();
        await t.api("DELETE", `/api/v1/sandboxes/${conv.sandbox_id}`, { key: alice });
        const res = await send(surface, conv.id, message("x"));
        expect(res.status).toBe(410);
        expect(res.body.code).toBe("CONVERSATION_ARCHIVED");
        const read = await t.api("GET", `/api/v1/app-conversations/${conv.id}`, { key: alice });
        expect(read.body).toMatchObject({
          archived: true,
          sandbox_status: "MISSING",
          conversation_url: null,
        });
      });

      it("5. killed agent server, then ERROR: 503", async () => {
        const conv = await createConversation();
        await killAgentServer(t, conv.sandbox_id);
        const refused = await send(surface, conv.id, message("x"));
        expect(refused.status).toBe(503);
        expect(refused.body.code).toBe("SANDBOX_UNAVAILABLE");
        await t.waitForStatus(conv.sandbox_id, "ERROR", alice, 10_000);
        expect((await send(surface, conv.id, message("x"))).status).toBe(503);
      });

      it("5. an agent server that hangs: 503 after the configured timeout, delivery unknown", async () => {
        // A server whose supervisor stays quiet, so nothing but the request notices the hang.
        const quiet = await startTestServer({ config: { supervisorIntervalMs: 3_600_000 } });
        try {
          const hanging = (await quiet.api("POST", "/api/v1/app-conversations", { body: {} })).body;
          // Freeze the agent server behind the control plane's back: the record still says RUNNING.
          await quiet.runtime.pause(hanging.sandbox_id);
          const timeoutMs = quiet.server.core.deps.config.agentRequestTimeoutMs;
          const res =
            surface === "rest"
              ? await quiet.api("POST", `/api/v1/app-conversations/${hanging.id}/send-message`, {
                  body: message("x"),
                })
              : await quiet.trpc("mutation", "conversations.sendMessage", {
                  ...message("x"),
                  conversation_id: hanging.id,
                });
          expect(res.status).toBe(503);
          // Given up by the configured time-out (no clock in the test: the answer names it), and
          // honest that the message may have arrived: the request was sent to a live process.
          const said = JSON.stringify(res.body);
          expect(said).toContain(`did not answer within ${timeoutMs} ms`);
          expect(said).toMatch(/whether the message arrived is unknown/);
          await quiet.runtime.resume(hanging.sandbox_id);
        } finally {
          await quiet.close();
        }
      });

      it("6. invalid bodies and ids: 422 with issues", async () => {
        const conv = await createConversation();
        const bad: unknown[] = [
          {},
          { content: [] },
          { content: "" },
          { content: [{ type: "text", text: "" }] },
          { role: "assistant", content: [{ type: "text", text: "x" }] },
          { content: [{ type: "video", url: "x" }] },
          { content: [{ type: "text", text: "x" }], run: "yes" },
        ];
        for (const body of bad) {
          const res = await send(surface, conv.id, body);
          expect(res.status, JSON.stringify(body)).toBe(422);
          expect(res.body.code).toBe("VALIDATION_FAILED");
        }
        expect((await send(surface, "not-a-uuid", message("x"))).status).toBe(422);
        if (surface === "rest") {
          const malformed = await t.api(
            "POST",
            `/api/v1/app-conversations/${conv.id}/send-message`,
            {
              key: alice,
              rawBody: '{"content": [',
            },
          );
          expect(malformed.status).toBe(422);
        }
        const events = await readEvents(conv.conversation_url, conv.session_api_key);
        expect(events.filter((e) => e.kind === "MessageEvent")).toHaveLength(0);
      });
    });
  }

  it("7. forwards the body unchanged: the single-TextContent form stays as sent, no defaults added", async () => {
    const conv = await createConversation();
    const res = await send("rest", conv.id, { content: { type: "text", text: "plain" } });
    expect(res.status).toBe(200);
    const events = await readEvents(conv.conversation_url, conv.session_api_key);
    const user = events.filter((e) => e.kind === "MessageEvent" && e.source === "user");
    expect(user[0]?.llm_message.content).toEqual([{ type: "text", text: "plain" }]);
    // run defaulted on the agent server (false): the agent did not run.
    expect(events.some((e) => e.kind === "ActionEvent")).toBe(false);
  });
});

describe("equivalence of the three ways to send", () => {
  it("leaves identical event logs and replies via proxy, direct REST and WebSocket", async () => {
    const texts = ["echo one", "printf 'two\\n'; exit 3", "echo three >&2"];
    const [viaProxy, viaRest, viaSocket] = await Promise.all([
      createConversation(),
      createConversation(),
      createConversation(),
    ]);
    const sandboxOf = async (c: { sandbox_id: string }) =>
      (await t.api("GET", `/api/v1/sandboxes/${c.sandbox_id}`, { key: alice })).body;
    const socketSandbox = await sandboxOf(viaSocket);
    const ws = await openEventSocket(
      socketSandbox.agent_server_url,
      viaSocket.id,
      viaSocket.session_api_key,
    );
    for (const text of texts) {
      expect((await send("rest", viaProxy.id, message(text, { run: true }))).status).toBe(200);
      const direct = await fetch(`${viaRest.conversation_url}/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-session-api-key": viaRest.session_api_key,
        },
        body: JSON.stringify(message(text, { run: true })),
      });
      expect(direct.status).toBe(200);
      ws.socket.send(JSON.stringify(message(text)));
      for (const c of [viaProxy, viaRest, viaSocket]) {
        await waitForExecution(c.conversation_url, c.session_api_key);
      }
    }
    ws.socket.close();
    const logs = await Promise.all(
      [viaProxy, viaRest, viaSocket].map(async (c) =>
        (await readEvents(c.conversation_url, c.session_api_key)).map(normaliseEvent),
      ),
    );
    const [proxyLog, restLog, socketLog] = logs as [AgentEvent[], AgentEvent[], AgentEvent[]];
    expect(proxyLog.length).toBeGreaterThan(texts.length * 3);
    expect(restLog).toEqual(proxyLog);
    expect(socketLog).toEqual(proxyLog);
    const replies = proxyLog.filter((e) => e.kind === "MessageEvent" && e.source === "agent");
    expect(replies).toHaveLength(3);
    expect(JSON.stringify(replies)).toContain("two");
  });
});
