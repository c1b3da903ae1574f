import { randomBytes } from "node:crypto";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentEvent, readEvents, waitForExecution } from "./agent";
import { startTestServer, type TestServer } from "./harness";
import {
  type Receiver,
  type Responder,
  startReceiver,
  verifySignature,
  waitUntil,
} from "./receiver";

let t: TestServer;
let alice: string;
let bob: string;
const receivers: Receiver[] = [];
const secrets: string[] = [];

beforeAll(async () => {
  t = await startTestServer({
    config: {
      webhookTimeoutMs: 1_000,
      webhookMaxAttempts: 5,
      webhookBackoffBaseMs: 40,
      webhookBackoffMaxMs: 200,
      followerReconnectBaseMs: 50,
      followerReconnectMaxMs: 500,
      // The receivers listen on 127.0.0.1.
      webhookAllowPrivateNetworks: true,
    },
  });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});
afterAll(async () => {
  await t.close();
  for (const receiver of receivers) await receiver.close();
});

const message = (text: string, run = true) => ({
  role: "user",
  content: [{ type: "text", text }],
  run,
});

interface Conversation {
  id: string;
  sandbox_id: string;
  conversation_url: string;
  session_api_key: string;
}

async function createConversation(body: Record<string, unknown> = {}): Promise<Conversation> {
  const res = await t.api("POST", "/api/v1/app-conversations", { key: alice, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function receiver(respond?: Responder): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function register(body: Record<string, unknown>, key = alice) {
  const res = await t.api("POST", "/api/v1/webhooks", { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  secrets.push(res.body.secret);
  return res.body as { id: string; secret: string; url: string };
}

async function send(conv: Conversation, text: string) {
  const res = await t.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
    key: alice,
    body: message(text),
  });
  expect(res.status).toBe(200);
}

/** Conversation events a receiver got, once per delivery, in arrival order. */
function conversationEvents(r: Receiver, conversationId: string): AgentEvent[] {
  return r
    .delivered()
    .filter((x) => x.payload.conversation_id === conversationId)
    .map((x) => x.payload.data);
}

/** Waits until `r` got every event of `conv` (of `kinds`, when given) exactly in the agent's order. */
async function waitForAll(
  r: Receiver,
  conv: Conversation,
  kinds?: string[],
): Promise<AgentEvent[]> {
  const expected = (await readEvents(conv.conversation_url, conv.session_api_key)).filter(
    (e) => !kinds || kinds.includes(e.kind),
  );
  await waitUntil(
    () => conversationEvents(r, conv.id).length >= expected.length,
    () => `${conversationEvents(r, conv.id).length} of ${expected.length} events delivered`,
  );
  expect(conversationEvents(r, conv.id).map((e) => e.id)).toEqual(expected.map((e) => e.id));
  return expected;
}

describe("registering webhooks", () => {
  it("validates, shows the secret once, pages, and is the owner's only", async () => {
    const bad = [
      { url: "ftp://127.0.0.1/hook" },
      { url: "file:///etc/passwd" },
      { url: "not a url" },
      { url: "http://127.0.0.1/hook", events: ["NoSuchEvent"] },
      { url: "http://127.0.0.1/hook", secret: "short" },
      // Standard Webhooks secrets only: whsec_ + standard base64 (padded) of 24..64 bytes.
      { url: "http://127.0.0.1/hook", secret: "my-own-secret-0123456789" },
      { url: "http://127.0.0.1/hook", secret: `whsec_${randomBytes(16).toString("base64")}` },
      { url: "http://127.0.0.1/hook", secret: `whsec_${randomBytes(65).toString("base64")}` },
      { url: "http://127.0.0.1/hook", secret: `whsec_${"-_".repeat(16)}` },
      { url: "http://127.0.0.1/hook", secret: `whsec_${randomBytes(25).toString("base64url")}` },
      { url: "http://127.0.0.1/hook", conversation_id: "nope" },
    ];
    for (const body of bad) {
      const res = await t.api("POST", "/api/v1/webhooks", { key: alice, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe("VALIDATION_FAILED");
    }
    const unknownConversation = await t.api("POST", "/api/v1/webhooks", {
      key: alice,
      body: { url: "http://127.0.0.1/hook", conversation_id: crypto.randomUUID() },
    });
    expect(unknownConversation.status).toBe(404);

    const first = await register({ url: "http://127.0.0.1:9/a" });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(first.secret.slice("whsec_".length), "base64")).toHaveLength(32);
    const own = `whsec_${randomBytes(24).toString("base64")}`;
    const second = await register({
      url: "https://example.invalid/b",
      events: ["MessageEvent", "sandbox.status_changed"],
      secret: own,
    });
    expect(second.secret).toBe(own);

    const read = await t.api("GET", `/api/v1/webhooks/${first.id}`, { key: alice });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: first.id, url: "http://127.0.0.1:9/a", events: null });
    expect(read.body).not.toHaveProperty("secret");

    const page1 = await t.api("GET", "/api/v1/webhooks?limit=1", { key: alice });
    expect(page1.body.items.map((w: { id: string }) => w.id)).toEqual([second.id]);
    const page2 = await t.api(
      "GET",
      `/api/v1/webhooks?limit=1&page_id=${page1.body.next_page_id}`,
      {
        key: alice,
      },
    );
    expect(page2.body.items.map((w: { id: string }) => w.id)).toEqual([first.id]);
    expect(JSON.stringify([page1.body, page2.body])).not.toContain(first.secret);

    for (const [method, path] of [
      ["GET", `/api/v1/webhooks/${first.id}`],
      ["GET", `/api/v1/webhooks/${first.id}/deliveries`],
      ["DELETE", `/api/v1/webhooks/${first.id}`],
    ] as const) {
      const res = await t.api(method, path, { key: bob });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("WEBHOOK_NOT_FOUND");
    }
    expect((await t.api("GET", "/api/v1/webhooks", { key: bob })).body.items).toEqual([]);

    for (const hook of [first, second]) {
      expect((await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice })).status).toBe(
        200,
      );
      expect((await t.api("GET", `/api/v1/webhooks/${hook.id}`, { key: alice })).status).toBe(404);
    }

    const doc = (await t.api("GET", "/api/v1/openapi.json", { key: null })).body;
    expect(doc.paths["/api/v1/webhooks"].post.operationId).toBe(
      "create_webhook_api_v1_webhooks_post",
    );
    expect(doc.paths["/api/v1/webhooks"].post.responses).toHaveProperty("201");
    expect(doc.paths["/api/v1/webhooks/{id}/deliveries"].get.operationId).toBe(
      "search_webhook_deliveries_api_v1_webhooks__id__deliveries_get",
    );
  });
});

describe("the OpenAPI document's webhooks section", () => {
  it("lists every event kind with its payload schema and the Standard Webhooks headers", async () => {
    const { status, body } = await t.api("GET", "/api/v1/openapi.json", { key: null });
    expect(status).toBe(200);
    const result = await new Validator().validate(body);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(body.webhooks)).toEqual([
      "MessageEvent",
      "ActionEvent",
      "ObservationEvent",
      "ConversationStateUpdateEvent",
      "AgentErrorEvent",
      "ConversationErrorEvent",
      "sandbox.status_changed",
      "sandbox.deleted",
      "sandbox.egress_denied",
    ]);
    type Item = {
      post: {
        parameters: { in: string; name: string }[];
        requestBody: {
          content: {
            "application/json": {
              schema: { required: string[]; properties: { kind: { const: string } } };
            };
          };
        };
      };
    };
    for (const [kind, item] of Object.entries(body.webhooks as Record<string, Item>)) {
      expect(item.post.parameters.every((p) => p.in === "header")).toBe(true);
      const headers = item.post.parameters.map((p) => p.name);
      expect(headers, kind).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const schema = item.post.requestBody.content["application/json"].schema;
      expect(schema.properties.kind.const).toBe(kind);
      expect(schema.required).toContain("data");
    }
    const lifecycle = body.webhooks["sandbox.status_changed"].post.requestBody.content;
    expect(lifecycle["application/json"].schema.properties.data.required).toEqual([
      "sandbox_id",
      "status",
      "previous_status",
      "status_detail",
    ]);
    const message = body.webhooks.MessageEvent.post.requestBody.content;
    expect(message["application/json"].schema.properties.data.$ref).toBe(
      "#/components/schemas/ConversationEvent",
    );
  });
});

describe("delivering events", () => {
  it("delivers a conversation's events signed and in order, and only to the owner's webhooks", async () => {
    const all = await receiver();
    const messagesOnly = await receiver();
    const bobs = await receiver();
    const allHook = await register({ url: all.url });
    const bobHook = await register({ url: bobs.url }, bob);

    const conv = await createConversation({ initial_message: message("echo signed") });
    const messagesHook = await register({
      url: messagesOnly.url,
      events: ["MessageEvent"],
      conversation_id: conv.id,
    });
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    await send(conv, "echo second");
    await waitForExecution(conv.conversation_url, conv.session_api_key);

    const events = await waitForAll(all, conv);
    const deliveries = all.delivered().filter((x) => x.payload.conversation_id === conv.id);
    for (const [i, x] of deliveries.entries()) {
      expect(verifySignature(allHook.secret, x)).toBe(true);
      expect(verifySignature(messagesHook.secret, x)).toBe(false);
      expect(Math.abs(Number(x.timestamp) - Date.now() / 1000)).toBeLessThan(300);
      expect(x.deliveryId).toMatch(/^whd_/);
      expect(x.signature).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      expect(x.payload).toEqual({
        event_id: events[i]?.id,
        kind: events[i]?.kind,
        occurred_at: events[i]?.timestamp,
        sandbox_id: conv.sandbox_id,
        conversation_id: conv.id,
        data: events[i],
      });
    }
    expect(new Set(deliveries.map((x) => x.deliveryId)).size).toBe(deliveries.length);
    const lifecycle = all.delivered().filter((x) => x.payload.sandbox_id === conv.sandbox_id);
    expect(lifecycle.map((x) => x.payload.kind)).toContain("sandbox.status_changed");
    expect(
      lifecycle.find((x) => x.payload.kind === "sandbox.status_changed")?.payload.data,
    ).toEqual({
      sandbox_id: conv.sandbox_id,
      status: "RUNNING",
      previous_status: "STARTING",
      status_detail: null,
    });

    // The scoped webhook: this conversation's MessageEvents that came after it was registered.
    await waitUntil(
      () => messagesOnly.delivered().some((x) => JSON.stringify(x.payload).includes("second")),
      () => "the scoped webhook missed the second message",
    );
    expect(messagesOnly.delivered().every((x) => x.payload.kind === "MessageEvent")).toBe(true);
    expect(messagesOnly.delivered().every((x) => x.payload.conversation_id === conv.id)).toBe(true);
    const messageIds = events.filter((e) => e.kind === "MessageEvent").map((e) => e.id);
    const scopedIds = messagesOnly.delivered().map((x) => x.payload.event_id);
    expect(messageIds.slice(messageIds.length - scopedIds.length)).toEqual(scopedIds);

    // Bob's webhook is owner-wide, yet none of Alice's events reach it.
    expect(bobs.received).toEqual([]);
    const bobDeliveries = await t.api("GET", `/api/v1/webhooks/${bobHook.id}/deliveries`, {
      key: bob,
    });
    expect(bobDeliveries.body.items).toEqual([]);

    const listed = await t.api("GET", `/api/v1/webhooks/${allHook.id}/deliveries?limit=100`, {
      key: alice,
    });
    const forConv = listed.body.items.filter((d: { event_id: string }) =>
      events.some((e) => e.id === d.event_id),
    );
    expect(forConv).toHaveLength(events.length);
    for (const d of forConv) {
      expect(d).toMatchObject({ status: "succeeded", attempts: 1, last_status_code: 200 });
    }
    for (const hook of [allHook, messagesHook]) {
      await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice });
    }
  });

  /** A new conversation with a MessageEvent webhook answered by `respond`, after two turns. */
  async function twoTurnsTo(respond: Responder) {
    const conv = await createConversation();
    const r = await receiver(respond);
    const hook = await register({ url: r.url, events: ["MessageEvent"], conversation_id: conv.id });
    for (const text of ["echo one", "echo two"]) await send(conv, text);
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    return { conv, r, hook };
  }

  it("retries a failing receiver with the same delivery id, then keeps the stream in order", async () => {
    // Fails twice, then succeeds, for every delivery.
    const { conv, r: flaky, hook } = await twoTurnsTo((_x, attempt) => (attempt <= 2 ? 503 : 200));
    const events = await waitForAll(flaky, conv, ["MessageEvent"]);
    expect(events).toHaveLength(4);

    const ids = flaky.received.map((x) => x.deliveryId);
    const order = [...new Set(ids)];
    expect(order).toHaveLength(4);
    // Each delivery: three attempts with identical id and body, finished before the next starts.
    expect(ids).toEqual(order.flatMap((id) => [id, id, id]));
    for (const id of order) {
      const attempts = flaky.received.filter((x) => x.deliveryId === id);
      expect(new Set(attempts.map((x) => x.body)).size).toBe(1);
      expect(attempts.map((x) => x.answered)).toEqual([503, 503, 200]);
      expect(attempts.every((x) => verifySignature(hook.secret, x))).toBe(true);
    }
    const listed = await t.api("GET", `/api/v1/webhooks/${hook.id}/deliveries`, { key: alice });
    expect(listed.body.items).toHaveLength(4);
    for (const d of listed.body.items) {
      expect(d).toMatchObject({ status: "succeeded", attempts: 3, last_status_code: 200 });
    }
    await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice });
  });

  it("gives up after the attempt limit and then delivers the next event of the stream", async () => {
    let poisoned: string | null = null;
    const { r: picky, hook } = await twoTurnsTo((x) => {
      poisoned ??= x.deliveryId;
      return x.deliveryId === poisoned ? 500 : 200;
    });
    await waitUntil(
      () => picky.delivered().length === 3,
      () => `${picky.delivered().length} deliveries succeeded`,
    );
    const failed = await t.api("GET", `/api/v1/webhooks/${hook.id}/deliveries?status=failed`, {
      key: alice,
    });
    expect(failed.body.items).toHaveLength(1);
    expect(failed.body.items[0]).toMatchObject({
      id: poisoned,
      status: "failed",
      attempts: 5,
      last_status_code: 500,
      next_attempt_at: null,
    });
    expect(failed.body.items[0].last_error).toBe("http_5xx");
    const firstLater = picky.received.findIndex((x) => x.deliveryId !== poisoned);
    expect(picky.received.slice(0, firstLater).map((x) => x.deliveryId)).toEqual(
      Array(5).fill(poisoned),
    );
    await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice });
  });

  it("loses nothing while the receiver is down across a control-plane restart", async () => {
    // Within the retry budget: with this suite's 40–200 ms backoff, five attempts are over in under
    // a second, far less than the receiver stays down here (the real budget is hours).
    const budget = { webhookMaxAttempts: 10_000 };
    Object.assign(t.server.core.deps.config, budget);
    const conv = await createConversation();
    const r = await receiver();
    const hook = await register({ url: r.url, conversation_id: conv.id });
    await r.down();
    await send(conv, "echo while-down");
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    await t.server.close();
    // Made while the control plane is down too: only following again brings it in.
    const direct = await fetch(`${conv.conversation_url}/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-api-key": conv.session_api_key },
      body: JSON.stringify(message("echo while-restarting")),
    });
    expect(direct.status).toBe(200);
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    await t.restart(budget);
    await r.up();
    const events = await waitForAll(r, conv);
    expect(JSON.stringify(events)).toContain("while-restarting");
    expect(r.delivered().every((x) => verifySignature(hook.secret, x))).toBe(true);
    await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice });
    // Back to the suite's own budget for the tests after this one.
    await t.restart();
  });

  it("a hanging receiver does not change send-message behaviour", async () => {
    const first = await createConversation();
    // Several conversations: several streams, so hung POSTs fill the worker's slots.
    const convs = [first];
    for (let i = 0; i < 3; i++)
      convs.push(await createConversation({ sandbox_id: first.sandbox_id }));
    const hanging = await receiver(() => "hang");
    const hook = await register({ url: hanging.url });
    for (const conv of convs) await send(conv, "true");
    await waitUntil(
      () => hanging.received.length >= convs.length,
      () => `the hanging receiver got ${hanging.received.length} requests`,
    );
    expect(hanging.received.every((x) => x.answered === null)).toBe(true);
    // Every slot of this user holds a hung request; sends still answer 200 and still arrive
    // (what the proxy costs under load is the bench's business, not a test's).
    for (let i = 0; i < 20; i++) {
      await send(convs[i % convs.length] as Conversation, `echo while-hung-${i}`);
    }
    for (const conv of convs) await waitForExecution(conv.conversation_url, conv.session_api_key);
    const events = await readEvents(first.conversation_url, first.session_api_key);
    expect(JSON.stringify(events)).toContain("while-hung-16");
    const pending = await t.api("GET", `/api/v1/webhooks/${hook.id}/deliveries?status=pending`, {
      key: alice,
    });
    expect(pending.body.items.length).toBeGreaterThan(convs.length);
    await t.api("DELETE", `/api/v1/webhooks/${hook.id}`, { key: alice });
  });

  it("shows a URL's password as ***, never logs it, and authenticates deliveries with it", async () => {
    const conv = await createConversation();
    const r = await receiver();
    const password = "S3cret-pass-w0rd";
    const token = "tok3n-in-user-part";
    secrets.push(password, token);
    const withPassword = r.url.replace("http://", `http://hook-user:${password}@`);
    const withToken = r.url.replace("http://", `http://${token}@`);
    const shown = {
      [withPassword]: r.url.replace("http://", "http://hook-user:***@"),
      [withToken]: r.url.replace("http://", "http://***@"),
    };
    const ids: string[] = [];
    for (const url of [withPassword, withToken]) {
      const created = await register({ url, events: ["MessageEvent"], conversation_id: conv.id });
      expect(created.url).toBe(shown[url]);
      const read = await t.api("GET", `/api/v1/webhooks/${created.id}`, { key: alice });
      expect(read.body.url).toBe(shown[url]);
      ids.push(created.id);
    }
    const listed = await t.api("GET", "/api/v1/webhooks", { key: alice });
    const listedUrls = listed.body.items.map((w: { url: string }) => w.url);
    expect(listedUrls).toEqual(expect.arrayContaining(Object.values(shown)));
    expect(JSON.stringify(listed.body)).not.toContain(password);
    expect(JSON.stringify(listed.body)).not.toContain(token);

    await send(conv, "echo authenticated");
    await waitForExecution(conv.conversation_url, conv.session_api_key);
    const basic = (user: string, pass: string) =>
      `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    await waitUntil(
      () => {
        const seen = new Set(r.delivered().map((x) => x.authorization));
        return seen.has(basic("hook-user", password)) && seen.has(basic(token, ""));
      },
      () => `authorizations seen: ${r.delivered().length} deliveries`,
    );
    // Credentials travel only in the Authorization header, never in the request line.
    expect(r.received.every((x) => x.authorization.startsWith("Basic "))).toBe(true);
    for (const id of ids) await t.api("DELETE", `/api/v1/webhooks/${id}`, { key: alice });
  });

  it("records why an attempt failed as a category, never a message or an address", async () => {
    const conv = await createConversation();
    const down = await receiver();
    await down.down();
    const plain = await receiver();
    const cases: Array<[string, string]> = [
      [down.url, "connect_refused"],
      [(await receiver(() => "hang")).url, "timeout"],
      [(await receiver(() => 404)).url, "http_4xx"],
      [(await receiver(() => 302)).url, "http_3xx"],
      [(await receiver(() => 503)).url, "http_5xx"],
      [plain.url.replace("http://", "https://"), "tls_error"],
      ["http://nowhere.invalid/hook", "dns_failed"],
    ];
    const hooks: Array<[string, string]> = [];
    for (const [url, category] of cases) {
      const hook = await register({ url, events: ["MessageEvent"], conversation_id: conv.id });
      hooks.push([hook.id, category]);
    }
    await send(conv, "echo categories");
    for (const [id, category] of hooks) {
      const attempted = await waitUntil(
        async () => {
          const res = await t.api("GET", `/api/v1/webhooks/${id}/deliveries`, { key: alice });
          return res.body.items.find((d: { attempts: number }) => d.attempts > 0);
        },
        () => `no attempt for the ${category} webhook`,
      );
      expect(attempted.last_error, category).toBe(category);
      expect(JSON.stringify(attempted)).not.toContain("127.0.0.1");
    }
    for (const [id] of hooks) await t.api("DELETE", `/api/v1/webhooks/${id}`, { key: alice });
  });

  it("never logs a webhook secret", () => {
    const logs = t.logs();
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});
