import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let alice: string;
let bob: string;
beforeAll(async () => {
  t = await startTestServer({ config: { webhookAllowPrivateNetworks: true } });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});
afterAll(async () => {
  await t.close();
});

interface Answer {
  status: number;
  replayed: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected structurally
  body: any;
}

async function rest(
  method: string,
  path: string,
  options: { key?: string; idempotencyKey?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.key ?? alice}` };
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${t.url}/api/v1${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed"),
    body: text ? JSON.parse(text) : null,
  };
}

async function trpcMutation(
  procedure: string,
  input: unknown,
  options: { key?: string; idempotencyKey?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.key ?? alice}`,
    "content-type": "application/json",
  };
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
  const res = await fetch(`${t.url}/trpc/${procedure}`, {
    method: "POST",
    headers,
    body: JSON.stringify(input),
  });
  const json = (await res.json()) as { result?: { data: unknown }; error?: unknown };
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed"),
    body: json.error ?? json.result?.data,
  };
}

const webhook = (path: string) => ({ url: `http://127.0.0.1:9/${path}` });

async function sandboxesLabelled(label: string, key = alice): Promise<string[]> {
  const page = await rest("GET", `/sandboxes/search?label=${encodeURIComponent(label)}`, { key });
  return page.body.items.map((s: { id: string }) => s.id);
}

describe("Idempotency-Key on creates", () => {
  it("replays the first answer (same status and body, Idempotent-Replayed) and creates once", async () => {
    const body = { labels: { idem: "replay" } };
    const first = await rest("POST", "/sandboxes", { idempotencyKey: "sb-replay-1", body });
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const again = await rest("POST", "/sandboxes", { idempotencyKey: "sb-replay-1", body });
    expect(again.status).toBe(201);
    expect(again.replayed).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await sandboxesLabelled("idem=replay")).toEqual([first.body.id]);

    // The same key with another body is refused, and creates nothing.
    const other = await rest("POST", "/sandboxes", {
      idempotencyKey: "sb-replay-1",
      body: { labels: { idem: "other" } },
    });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await sandboxesLabelled("idem=other")).toEqual([]);

    // Keys are per user: bob's request with alice's key is his own create.
    const bobs = await rest("POST", "/sandboxes", {
      key: bob,
      idempotencyKey: "sb-replay-1",
      body,
    });
    expect(bobs.status).toBe(201);
    expect(bobs.replayed).toBeNull();
    expect(bobs.body.id).not.toBe(first.body.id);
    await rest("DELETE", `/sandboxes/${bobs.body.id}`, { key: bob });
    await rest("DELETE", `/sandboxes/${first.body.id}`);
  });

  it("creates one resource when identical requests arrive at once", async () => {
    const body = { labels: { idem: "concurrent" } };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        rest("POST", "/sandboxes", { idempotencyKey: "sb-concurrent", body }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    for (const answer of answers) expect(answer.body).toEqual(answers[0]?.body);
    expect(await sandboxesLabelled("idem=concurrent")).toEqual([...ids]);
    await rest("DELETE", `/sandboxes/${[...ids][0]}`);
  });

  it("replays a secret shown once (an API key) and keeps it sealed at rest", async () => {
    const first = await rest("POST", "/users/me/api-keys", {
      idempotencyKey: "key-1",
      body: { name: "ci" },
    });
    expect(first.status).toBe(201);
    const again = await rest("POST", "/users/me/api-keys", {
      idempotencyKey: "key-1",
      body: { name: "ci" },
    });
    expect(again).toMatchObject({ status: 201, replayed: "true", body: first.body });
    // One key was made, and it works.
    const keys = await rest("GET", "/users/me/api-keys");
    expect(keys.body.items.filter((k: { name: string }) => k.name === "ci")).toHaveLength(1);
    expect((await rest("GET", "/users/me", { key: first.body.api_key })).status).toBe(200);
    // The stored response is sealed: the row holds no plain text of it.
    const me = (await rest("GET", "/users/me")).body;
    const record = await t.server.core.deps.repos.idempotencyKeys.get(me.id, "key-1");
    expect(record?.responseBody).toContain(first.body.api_key);
    const [stored] = await t.rawQuery(
      "SELECT response_body FROM idempotency_keys WHERE key = 'key-1'",
    );
    const body = String(stored?.response_body);
    expect(body.startsWith("enc:v1:")).toBe(true);
    expect(body).not.toContain(first.body.api_key);
  });

  it("works the same over tRPC, and across both surfaces", async () => {
    const first = await trpcMutation("webhooks.create", webhook("trpc"), {
      idempotencyKey: "wh-1",
    });
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    expect(first.body.secret).toMatch(/^whsec_/);
    const again = await trpcMutation("webhooks.create", webhook("trpc"), {
      idempotencyKey: "wh-1",
    });
    expect(again).toMatchObject({ status: 200, replayed: "true", body: first.body });
    // The same request over REST is the same request: replayed with REST's 201.
    const viaRest = await rest("POST", "/webhooks", {
      idempotencyKey: "wh-1",
      body: webhook("trpc"),
    });
    expect(viaRest).toMatchObject({ status: 201, replayed: "true", body: first.body });
    const other = await trpcMutation("webhooks.create", webhook("elsewhere"), {
      idempotencyKey: "wh-1",
    });
    expect(other.status).toBe(422);
    expect(other.body.data.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const list = await rest("GET", "/webhooks");
    expect(list.body.items.filter((w: { id: string }) => w.id === first.body.id)).toHaveLength(1);
    expect(list.body.items).toHaveLength(1);
  });

  it("does not keep failures: a create that failed can be retried with its key", async () => {
    const bad = await rest("POST", "/webhooks", { idempotencyKey: "wh-retry", body: { url: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe("VALIDATION_FAILED");
    const good = await rest("POST", "/webhooks", {
      idempotencyKey: "wh-retry",
      body: webhook("retry"),
    });
    expect(good.status).toBe(201);
    expect(good.replayed).toBeNull();
    await rest("DELETE", `/webhooks/${good.body.id}`);
  });

  it("refuses keys that are empty, too long or not printable ASCII (422), on creates only", async () => {
    for (const key of ["", "k".repeat(256), "caf\u00e9"]) {
      const answer = await rest("POST", "/webhooks", { idempotencyKey: key, body: webhook("bad") });
      expect(answer.status, JSON.stringify(key)).toBe(422);
      expect(answer.body.code).toBe("VALIDATION_FAILED");
    }
    const ok = await rest("POST", "/webhooks", {
      idempotencyKey: "k".repeat(255),
      body: webhook("long"),
    });
    expect(ok.status).toBe(201);
    await rest("DELETE", `/webhooks/${ok.body.id}`);
    // Other procedures ignore the header.
    expect((await rest("GET", "/webhooks", { idempotencyKey: "" })).status).toBe(200);
  });

  it("answers 409 while the key is in progress elsewhere, and takes over an abandoned one", async () => {
    const me = (await rest("GET", "/users/me")).body;
    const { repos, config, now } = t.server.core.deps;
    const inProgress = (id: string, key: string, createdAt: number) => ({
      id,
      userId: me.id,
      key,
      // What the server computes: sha256 of the procedure path and the canonical input.
      requestHash: createHash("sha256")
        .update(`webhooks.create\n${JSON.stringify(webhook(key))}`)
        .digest("hex"),
      status: "in_progress",
      responseStatus: null,
      responseBody: null,
      createdAt,
    });
    // Recorded just now by a request this process does not run (another replica): 409.
    await repos.idempotencyKeys.insert(inProgress("idk_elsewhere", "busy", now()));
    const busy = await rest("POST", "/webhooks", { idempotencyKey: "busy", body: webhook("busy") });
    // Another body with that key is still another request.
    const reused = await rest("POST", "/webhooks", { idempotencyKey: "busy", body: webhook("x") });
    expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe("IDEMPOTENCY_KEY_IN_PROGRESS");

    // Recorded longer ago than any create can run (its process died mid-create): taken over.
    const bound =
      config.sandboxStartTimeoutMs +
      config.conversationStartTimeoutMs +
      config.agentRequestTimeoutMs;
    await repos.idempotencyKeys.insert(
      inProgress("idk_abandoned", "crashed", now() - bound - 1000),
    );
    const retried = await rest("POST", "/webhooks", {
      idempotencyKey: "crashed",
      body: webhook("crashed"),
    });
    expect(retried.status).toBe(201);
    expect(retried.replayed).toBeNull();
    expect(await repos.idempotencyKeys.get(me.id, "crashed")).toMatchObject({
      status: "completed",
    });

    // Older than a day: expired and removed, whatever it held.
    await repos.idempotencyKeys.insert({
      ...inProgress("idk_expired", "old", now() - 25 * 60 * 60 * 1000),
      status: "completed",
    });
    const fresh = await rest("POST", "/webhooks", { idempotencyKey: "old", body: webhook("old") });
    expect(fresh.status).toBe(201);
    expect(fresh.replayed).toBeNull();
    for (const answer of [retried, fresh]) await rest("DELETE", `/webhooks/${answer.body.id}`);
  });

  it("covers every create: users (admin) and conversations too", async () => {
    const user = await rest("POST", "/users", {
      key: ADMIN_KEY,
      idempotencyKey: "user-carol",
      body: { name: "carol" },
    });
    const userAgain = await rest("POST", "/users", {
      key: ADMIN_KEY,
      idempotencyKey: "user-carol",
      body: { name: "carol" },
    });
    expect(user.status).toBe(201);
    expect(userAgain).toMatchObject({ status: 201, replayed: "true", body: user.body });

    const conversation = await rest("POST", "/app-conversations", {
      idempotencyKey: "conv-1",
      body: { title: "idempotent" },
    });
    expect(conversation.status).toBe(201);
    const conversationAgain = await rest("POST", "/app-conversations", {
      idempotencyKey: "conv-1",
      body: { title: "idempotent" },
    });
    expect(conversationAgain).toMatchObject({
      status: 201,
      replayed: "true",
      body: conversation.body,
    });
    await rest("DELETE", `/sandboxes/${conversation.body.sandbox_id}`);
  });
});
