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
      body: { status: "ok" },
    });
    expect((await t.api("GET", "/ready", { key: null })).status).toBe(200);
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

describe("validation", () => {
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
