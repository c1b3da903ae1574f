import { connect } from "node:net";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe("service routes", () => {
  it("answers health and readiness without a key", async () => {
    expect(await t.api("GET", "/health", { key: null })).toEqual({
      status: 200,
      body: {
        status: "ok",
        runtime: t.runtime.kind,
        isolation: t.runtime.isolation,
        ...(t.runtime.network ? { network: t.runtime.network } : {}),
      },
    });
    expect((await t.api("GET", "/ready", { key: null })).status).toBe(200);
  });

  it("sends a browser at / to the docs", async () => {
    const res = await fetch(`${t.url}/`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/docs/");
  });

  it("serves the docs page offline", async () => {
    const res = await fetch(`${t.url}/docs/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("swagger-ui");
  });

  it("publishes a valid OpenAPI 3.1 document with true success codes and error responses", async () => {
    const { status, body } = await t.api("GET", "/api/v1/openapi.json", { key: null });
    expect(status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(body.openapi).toMatch(/^3\.1/);
    const send = body.paths["/api/v1/app-conversations/{conversation_id}/send-message"].post;
    expect(send.operationId).toBe(
      "send_message_to_conversation_api_v1_app_conversations__conversation_id__send_message_post",
    );
    for (const code of ["200", "404", "409", "410", "422", "503"])
      expect(send.responses).toHaveProperty(code);
    expect(body.paths["/api/v1/sandboxes"].post.responses).toHaveProperty("201");
    expect(body.paths["/api/v1/sandboxes"].post.responses).not.toHaveProperty("200");
  });
});

describe("authentication", () => {
  it("refuses a missing or wrong key on both surfaces", async () => {
    for (const key of [null, "ssk_wrong"]) {
      const rest = await t.api("GET", "/api/v1/sandboxes/search", { key });
      expect(rest.status).toBe(401);
      expect(rest.body.code).toBe("UNAUTHORIZED");
      const trpc = await t.trpc("query", "sandboxes.search", {}, key);
      expect(trpc.status).toBe(401);
      expect(trpc.body.data.code).toBe("UNAUTHORIZED");
    }
  });

  it("accepts the key as X-API-Key too", async () => {
    const res = await t.api("GET", "/api/v1/users/me", {
      key: null,
      headers: { "x-api-key": ADMIN_KEY },
    });
    expect(res.status).toBe(200);
    expect(res.body.is_admin).toBe(true);
  });

  it("lets only admins create users", async () => {
    const key = await t.createUser("alice");
    const me = await t.api("GET", "/api/v1/users/me", { key });
    expect(me.body.name).toBe("alice");
    const denied = await t.api("POST", "/api/v1/users", { key, body: { name: "mallory" } });
    expect(denied.status).toBe(403);
  });
});

describe("API keys", () => {
  it("creates, lists and revokes a user's keys; a revoked key is refused at once", async () => {
    const first = await t.createUser("keyholder");
    const created = await t.api("POST", "/api/v1/users/me/api-keys", {
      key: first,
      body: { name: "laptop" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "laptop", current: false });
    const second: string = created.body.api_key;
    expect(created.body.prefix).toBe(second.slice(0, 8));

    const listed = await t.api("GET", "/api/v1/users/me/api-keys", { key: second });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((k: { name: string }) => k.name)).toEqual(["default", "laptop"]);
    expect(listed.body.items.map((k: { current: boolean }) => k.current)).toEqual([false, true]);
    // Neither the keys nor their hashes are ever listed.
    expect(JSON.stringify(listed.body)).not.toContain(first);
    expect(JSON.stringify(listed.body)).not.toMatch(/[0-9a-f]{64}/);

    // The first key was just verified (and cached); revoking it still takes effect at once.
    expect((await t.api("GET", "/api/v1/users/me", { key: first })).status).toBe(200);
    const firstId = listed.body.items[0].id;
    const revoked = await t.api("DELETE", `/api/v1/users/me/api-keys/${firstId}`, { key: second });
    expect(revoked).toEqual({ status: 200, body: { success: true, id: firstId } });
    expect((await t.api("GET", "/api/v1/users/me", { key: first })).status).toBe(401);
    expect((await t.trpc("query", "users.me", {}, first)).status).toBe(401);

    const again = await t.api("DELETE", `/api/v1/users/me/api-keys/${firstId}`, { key: second });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("API_KEY_NOT_FOUND");
    const last = await t.api("DELETE", `/api/v1/users/me/api-keys/${created.body.id}`, {
      key: second,
    });
    expect(last.status).toBe(409);
    expect(last.body.code).toBe("LAST_API_KEY");
    expect((await t.api("GET", "/api/v1/users/me", { key: second })).status).toBe(200);
  });

  it("lets nobody list or revoke another user's keys", async () => {
    const alice = await t.createUser("alice-keys");
    const bob = await t.createUser("bob-keys");
    await t.api("POST", "/api/v1/users/me/api-keys", { key: alice, body: { name: "spare" } });
    const aliceKeys = (await t.api("GET", "/api/v1/users/me/api-keys", { key: alice })).body.items;
    const bobKeys = (await t.api("GET", "/api/v1/users/me/api-keys", { key: bob })).body.items;
    expect(bobKeys).toHaveLength(1);
    for (const key of aliceKeys) {
      const res = await t.api("DELETE", `/api/v1/users/me/api-keys/${key.id}`, { key: bob });
      expect(res.status).toBe(404);
      const admin = await t.api("DELETE", `/api/v1/users/me/api-keys/${key.id}`);
      expect(admin.status).toBe(404);
    }
    expect((await t.api("GET", "/api/v1/users/me", { key: alice })).status).toBe(200);
  });

  it("validates key names", async () => {
    for (const body of [{}, { name: "" }, { name: "   " }, { name: 5 }]) {
      const res = await t.api("POST", "/api/v1/users/me/api-keys", { body });
      expect(res.status).toBe(422);
    }
  });

  it("brings a revoked ADMIN_API_KEY back on restart: the environment decides", async () => {
    const own = await startTestServer();
    try {
      const spare = (
        await own.api("POST", "/api/v1/users/me/api-keys", { body: { name: "spare" } })
      ).body.api_key;
      const keys = (await own.api("GET", "/api/v1/users/me/api-keys")).body.items;
      const fixed = keys.find((k: { current: boolean }) => k.current);
      const res = await own.api("DELETE", `/api/v1/users/me/api-keys/${fixed.id}`, { key: spare });
      expect(res.status).toBe(200);
      expect((await own.api("GET", "/api/v1/users/me")).status).toBe(401);
      await own.restart();
      expect((await own.api("GET", "/api/v1/users/me")).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe("validation", () => {
  it("answers a URL or headers over Node's limit with 431 and a JSON body", async () => {
    const res = await fetch(`${t.url}/api/v1/sandboxes/search`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "x-filler": "x".repeat(20_000) },
    });
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({
      code: "HEADERS_TOO_LARGE",
      message: "The request line or headers are too large",
      detail: "The request line or headers are too large",
    });
    const long = await fetch(`${t.url}/api/v1/sandboxes/search?label=${"a".repeat(20_000)}`);
    expect(long.status).toBe(431);
  });

  it("answers bytes that are not HTTP with 400 and a JSON body", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(t.url).port), "127.0.0.1", () => {
        socket.write("NOT HTTP AT ALL\r\n\r\n");
      });
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("answers 422 with issues, for charset-qualified JSON too", async () => {
    const res = await t.api("POST", "/api/v1/sandboxes", {
      rawBody: JSON.stringify({ labels: { ok: 5 } }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.issues[0].path).toEqual(["labels", "ok"]);
  });

  it("answers 422 for malformed JSON on both surfaces", async () => {
    const rest = await t.api("POST", "/api/v1/sandboxes", { rawBody: "{nope" });
    expect(rest.status).toBe(422);
    expect(rest.body.code).toBe("MALFORMED_JSON");
    const res = await fetch(`${t.url}/trpc/sandboxes.start`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: "{nope",
    });
    expect(res.status).toBe(422);
  });

  it("answers 415 for a body that is not JSON, and 413 for one too large", async () => {
    const text = await t.api("POST", "/api/v1/sandboxes", {
      rawBody: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const huge = await t.api("POST", "/api/v1/sandboxes", {
      rawBody: JSON.stringify({ labels: { a: "x".repeat(2 * 1024 * 1024) } }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers 422 for unknown enum values and bad paging values", async () => {
    expect((await t.api("GET", "/api/v1/sandboxes/search?status=NAPPING")).status).toBe(422);
    expect((await t.api("GET", "/api/v1/sandboxes/search?limit=0")).status).toBe(422);
    expect((await t.api("GET", "/api/v1/sandboxes/search?page_id=garbage")).status).toBe(422);
  });

  it("answers JSON 404 for unknown routes", async () => {
    const res = await t.api("GET", "/api/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("NOT_FOUND");
  });
});

describe("internal errors", () => {
  it("never sends the message or stack of an unexpected error", async () => {
    const repo = t.server.core.deps.repos.sandboxes;
    const original = repo.search;
    repo.search = () => {
      throw new Error("secret internal detail at /srv/db.ts:42");
    };
    try {
      for (const res of [
        await t.api("GET", "/api/v1/sandboxes/search"),
        await t.trpc("query", "sandboxes.search", {}),
      ]) {
        expect(res.status).toBe(500);
        const text = JSON.stringify(res.body);
        expect(text).not.toContain("secret internal detail");
        expect(text).not.toContain("db.ts");
        expect(text).not.toMatch(/\bat\s+\S+\s+\(/);
      }
    } finally {
      repo.search = original;
    }
    expect((await t.api("GET", "/health")).status).toBe(200);
  });
});
