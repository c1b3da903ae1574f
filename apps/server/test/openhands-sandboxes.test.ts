import { createOpenApiDocument } from "@sandbox-server/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";

/**
 * OpenHands' clients on the sandbox, user and settings routes, with the requests they send
 * (openhands-compat.md §3.9–§3.17): exact headers and bodies through plain fetch.
 */
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

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected structurally
  body: any;
}

async function send(
  method: string,
  path: string,
  options: { key?: string | null; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? alice}`;
  const res = await fetch(`${t.url}/api/v1${path}`, { method, headers, body: options.body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** What OpenHands' SDK does: poll `GET /sandboxes?id=` until RUNNING. */
async function pollRunning(id: string, key = alice) {
  let last: Answer | undefined;
  await expect
    .poll(
      async () => {
        last = await send("GET", `/sandboxes?id=${id}`, { key });
        return last.body?.[0]?.status;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe("RUNNING");
  return last?.body[0];
}

const json = { "content-type": "application/json" };

describe("POST /sandboxes as OpenHands' clients send it", () => {
  it("starts without a body or content type (SDK), and with an empty JSON body (TS client)", async () => {
    const sdk = await send("POST", "/sandboxes", {});
    expect(sdk.status, JSON.stringify(sdk.body)).toBe(201);
    expect(sdk.body.sandbox_spec_id).toBe("default");
    const ts = await send("POST", "/sandboxes?sandbox_spec_id=default", { headers: json });
    expect(ts.status, JSON.stringify(ts.body)).toBe(201);
    expect(ts.body.sandbox_spec_id).toBe("default");
    const running = await pollRunning(ts.body.id);
    const agent = running.exposed_urls.find((u: { name: string }) => u.name === "AGENT_SERVER");
    expect(agent).toEqual({
      name: "AGENT_SERVER",
      url: running.agent_server_url,
      port: Number(new URL(running.agent_server_url).port),
    });
    expect((await fetch(`${agent.url}/health`)).status).toBe(200);
    expect(running.session_api_key).toEqual(expect.any(String));
    for (const id of [sdk.body.id, ts.body.id]) {
      expect((await send("DELETE", `/sandboxes/${id}`)).status).toBe(200);
    }
  });

  it("takes sandbox_spec_id from the query; an unknown one is 404, a query/body mismatch 422", async () => {
    const unknown = await send("POST", "/sandboxes?sandbox_spec_id=no-such-spec");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("SANDBOX_SPEC_NOT_FOUND");
    const mismatch = await send("POST", "/sandboxes?sandbox_spec_id=default", {
      headers: json,
      body: JSON.stringify({ sandbox_spec_id: "other" }),
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.issues[0].path).toEqual(["sandbox_spec_id"]);
    // Our documented body keeps working, with the same spec named twice too.
    const ours = await send("POST", "/sandboxes?sandbox_spec_id=default", {
      headers: json,
      body: JSON.stringify({ sandbox_spec_id: "default", labels: { via: "body" } }),
    });
    expect(ours.status).toBe(201);
    expect(ours.body.labels).toEqual({ via: "body" });
    // Query keys a body procedure does not declare never reach it.
    const undeclared = await send("POST", "/sandboxes?labels=x&env=y", { headers: json });
    expect(undeclared.status).toBe(201);
    expect(undeclared.body.labels).toEqual({});
    expect((await send("DELETE", `/sandboxes/${undeclared.body.id}`)).status).toBe(200);
    expect((await send("DELETE", `/sandboxes/${ours.body.id}`)).status).toBe(200);
  });

  it("answers 429 past the running limit, for a bodiless create too", async () => {
    const limited = await startTestServer({ config: { maxRunningSandboxes: 1 } });
    try {
      const post = () =>
        fetch(`${limited.url}/api/v1/sandboxes`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        });
      expect((await post()).status).toBe(201);
      const over = await post();
      expect(over.status).toBe(429);
      expect(await over.json()).toMatchObject({
        code: "SANDBOX_LIMIT_REACHED",
        detail: expect.any(String),
      });
    } finally {
      await limited.close();
    }
  });
});

describe("GET /sandboxes?id= (batch read)", () => {
  it("answers an array aligned with the ids, null for unknown and other users' sandboxes", async () => {
    const mine = await send("POST", "/sandboxes");
    const theirs = await send("POST", "/sandboxes", { key: bob });
    const batch = await send(
      "GET",
      `/sandboxes?id=${mine.body.id}&id=sb_unknown&id=${theirs.body.id}&id=${mine.body.id}`,
    );
    expect(batch.status).toBe(200);
    expect(batch.body).toHaveLength(4);
    expect(batch.body[0].id).toBe(mine.body.id);
    expect(batch.body[1]).toBeNull();
    expect(batch.body[2]).toBeNull();
    expect(batch.body[3].id).toBe(mine.body.id);
    // Bob sees his own.
    const his = await send("GET", `/sandboxes?id=${theirs.body.id}`, { key: bob });
    expect(his.body.map((s: { id: string }) => s.id)).toEqual([theirs.body.id]);
    // The same over tRPC.
    const trpc = await t.trpc("query", "sandboxes.batchGet", { id: [theirs.body.id] }, alice);
    expect(trpc.body).toEqual([null]);
    await send("DELETE", `/sandboxes/${mine.body.id}`);
    await send("DELETE", `/sandboxes/${theirs.body.id}`, { key: bob });
    // Deleted: null, as OpenHands' SDK reads a missing sandbox.
    expect((await send("GET", `/sandboxes?id=${mine.body.id}`)).body).toEqual([null]);
  });

  it("needs 1 to 100 ids: none or more is 422, and the search page stays where it was", async () => {
    const none = await send("GET", "/sandboxes");
    expect(none.status).toBe(422);
    expect(none.body.issues[0].path).toEqual(["id"]);
    expect(typeof none.body.detail).toBe("string");
    const many = Array.from({ length: 101 }, (_, i) => `id=sb_${i}`).join("&");
    expect((await send("GET", `/sandboxes?${many}`)).status).toBe(422);
    const hundred = Array.from({ length: 100 }, (_, i) => `id=sb_${i}`).join("&");
    const ok = await send("GET", `/sandboxes?${hundred}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveLength(100);
    expect((await send("GET", "/sandboxes/search")).body).toMatchObject({
      items: expect.any(Array),
    });
  });
});

describe("DELETE as OpenHands' clients send it", () => {
  it("deletes with the id in the path and the query (SDK), or in the query only (TS client)", async () => {
    const a = await send("POST", "/sandboxes");
    const b = await send("POST", "/sandboxes");
    const sdk = await send("DELETE", `/sandboxes/${a.body.id}?sandbox_id=${a.body.id}`);
    expect(sdk).toEqual({ status: 200, body: { success: true, id: a.body.id } });
    const ts = await send("DELETE", `/sandboxes?sandbox_id=${b.body.id}`, { headers: json });
    expect(ts).toEqual({ status: 200, body: { success: true, id: b.body.id } });
    for (const id of [a.body.id, b.body.id]) {
      expect((await send("GET", `/sandboxes/${id}`)).status).toBe(404);
    }
  });

  it("refuses a mismatch (422), a missing query id (422), and other users' sandboxes (404)", async () => {
    const a = await send("POST", "/sandboxes");
    const mismatch = await send("DELETE", `/sandboxes/${a.body.id}?sandbox_id=sb_other`);
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.issues[0].path).toEqual(["sandbox_id"]);
    const missing = await send("DELETE", "/sandboxes");
    expect(missing.status).toBe(422);
    expect(missing.body.issues[0].path).toEqual(["sandbox_id"]);
    const foreign = await send("DELETE", `/sandboxes?sandbox_id=${a.body.id}`, { key: bob });
    expect(foreign.status).toBe(404);
    // Nothing of that removed the sandbox.
    expect((await send("GET", `/sandboxes/${a.body.id}`)).status).toBe(200);
    expect((await send("DELETE", `/sandboxes?sandbox_id=${a.body.id}`)).status).toBe(200);
  });
});

describe("pause and resume as OpenHands' clients send them", () => {
  it("takes {} (web client, CloudClient), an empty JSON body (CloudWorkspace) and no body (SDK)", async () => {
    const created = await send("POST", "/sandboxes");
    await pollRunning(created.body.id);
    const path = `/sandboxes/${created.body.id}`;
    const paused = await send("POST", `${path}/pause`, { headers: json, body: "{}" });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe("PAUSED");
    const resumed = await send("POST", `${path}/resume`, { headers: json });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe("RUNNING");
    expect((await send("POST", `${path}/pause`)).body.status).toBe("PAUSED");
    const sdk = await send("POST", `${path}/resume`, {});
    expect(sdk.body.status).toBe("RUNNING");
    expect(
      (await send("POST", "/sandboxes/sb_unknown/pause", { body: "{}", headers: json })).status,
    ).toBe(404);
    await send("DELETE", path);
  });

  it("are documented under OpenHands' operationIds; the spec's {id} path stays", () => {
    const paths = createOpenApiDocument("").paths ?? {};
    const ids = (path: string, method: "get" | "post" | "delete") =>
      paths[`/api/v1${path}`]?.[method]?.operationId;
    expect(ids("/sandboxes/{id}/pause", "post")).toBe(
      "pause_sandbox_api_v1_sandboxes__sandbox_id__pause_post",
    );
    expect(ids("/sandboxes/{id}/resume", "post")).toBe(
      "resume_sandbox_api_v1_sandboxes__sandbox_id__resume_post",
    );
    expect(ids("/sandboxes", "post")).toBe("start_sandbox_api_v1_sandboxes_post");
    expect(ids("/sandboxes", "get")).toBe("batch_get_sandboxes_api_v1_sandboxes_get");
    expect(ids("/sandboxes/{id}", "delete")).toBe("delete_sandbox_api_v1_sandboxes__id__delete");
    expect(ids("/sandboxes/{id}/settings/secrets", "get")).toBe(
      "list_secret_names_api_v1_sandboxes__sandbox_id__settings_secrets_get",
    );
    expect(ids("/sandboxes/{id}/settings/secrets/{secret_name}", "get")).toBe(
      "get_secret_value_api_v1_sandboxes__sandbox_id__settings_secrets__secret_name__get",
    );
    expect(ids("/users/me", "get")).toBe("get_me_api_v1_users_me_get");
    expect(ids("/settings", "get")).toBe("load_settings_api_v1_settings_get");
    expect(ids("/web-client/config", "get")).toBe(
      "get_web_client_config_api_v1_web_client_config_get",
    );
    const start = paths["/api/v1/sandboxes"]?.post;
    expect(start?.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "sandbox_spec_id", in: "query" })]),
    );
  });
});

describe("sandbox secrets, read with the sandbox's own session key", () => {
  let sandbox: { id: string; session_api_key: string };
  let other: { id: string; session_api_key: string };
  beforeAll(async () => {
    const mine = (await send("POST", "/sandboxes")).body.id;
    const his = (await send("POST", "/sandboxes", { key: bob })).body.id;
    sandbox = (await t.waitForStatus(mine, "RUNNING", alice)).body;
    other = (await t.waitForStatus(his, "RUNNING", bob)).body;
  });

  const read = (path: string, key?: string) =>
    send("GET", path, { key: null, headers: key ? { "x-session-api-key": key } : {} });

  it("lists no secrets for the sandbox's key, and 404 for any name", async () => {
    const list = await read(`/sandboxes/${sandbox.id}/settings/secrets`, sandbox.session_api_key);
    expect(list).toEqual({ status: 200, body: { secrets: [] } });
    const value = await read(
      `/sandboxes/${sandbox.id}/settings/secrets/GITHUB_TOKEN`,
      sandbox.session_api_key,
    );
    expect(value.status).toBe(404);
    expect(value.body.detail).toBe("Secret not found");
  });

  it("refuses no key, an API key alone, a wrong key (401) and another sandbox's key (403)", async () => {
    const path = `/sandboxes/${sandbox.id}/settings/secrets`;
    expect((await read(path)).status).toBe(401);
    expect((await send("GET", path)).status).toBe(401);
    expect((await read(path, "not-a-session-key")).status).toBe(401);
    const foreign = await read(path, other.session_api_key);
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toBe("Session API key does not match sandbox");
    expect((await read(`${path}/X`, other.session_api_key)).status).toBe(403);
  });

  it("refuses the key of a sandbox that is not RUNNING", async () => {
    const path = `/sandboxes/${sandbox.id}/settings/secrets`;
    expect((await read(path, sandbox.session_api_key)).status).toBe(200);
    await send("POST", `/sandboxes/${sandbox.id}/pause`);
    expect((await read(path, sandbox.session_api_key)).status).toBe(401);
    await send("POST", `/sandboxes/${sandbox.id}/resume`);
    expect((await read(path, sandbox.session_api_key)).status).toBe(200);
  });

  it("never logs the session key", () => {
    expect(t.logs()).not.toContain(sandbox.session_api_key);
  });
});

describe("GET /users/me with OpenHands' fields", () => {
  it("answers ours and the SDK's fields, empty where the server keeps no settings", async () => {
    const me = await send("GET", "/users/me", { headers: json });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      name: "alice",
      is_admin: false,
      disabled: false,
      id: expect.any(String),
      created_at: expect.any(String),
      llm_model: null,
      llm_base_url: null,
      llm_api_key: null,
      llm_profiles: { profiles: {} },
      mcp_config: null,
    });
    expect((await send("GET", "/users/me", { key: null })).status).toBe(401);
  });

  it("expose_secrets=true needs the session key of a RUNNING sandbox of the caller's", async () => {
    const mine = await pollRunning((await send("POST", "/sandboxes")).body.id);
    const his = await pollRunning((await send("POST", "/sandboxes", { key: bob })).body.id, bob);
    const exposed = (key?: string) =>
      send("GET", "/users/me?expose_secrets=true", {
        headers: key ? { "x-session-api-key": key } : {},
      });
    expect((await exposed(mine.session_api_key)).status).toBe(200);
    expect((await exposed()).status).toBe(401);
    expect((await exposed("nope")).status).toBe(401);
    expect((await exposed(his.session_api_key)).status).toBe(403);
    // Without expose_secrets the session key is not needed.
    expect((await send("GET", "/users/me?expose_secrets=false")).status).toBe(200);
    expect((await send("GET", "/users/me?expose_secrets=maybe")).status).toBe(422);
  });
});

describe("settings and the web client's config", () => {
  it("GET /settings answers an object the web client, CLI and TS client read", async () => {
    const settings = await send("GET", "/settings", { headers: json });
    expect(settings.status).toBe(200);
    expect(settings.body).toMatchObject({
      v1_enabled: true,
      llm_api_key_set: false,
      search_api_key_set: false,
      language: "en",
      agent_settings: { llm: { model: null }, agent: expect.any(String) },
      conversation_settings: { confirmation_mode: false },
    });
    expect((await send("GET", "/settings", { key: null })).status).toBe(401);
    const trpc = await t.trpc("query", "settings.get", {}, alice);
    expect(trpc.body).toEqual(settings.body);
  });

  it("GET /web-client/config answers without credentials, app_mode oss", async () => {
    const config = await send("GET", "/web-client/config", { key: null });
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({
      app_mode: "oss",
      feature_flags: { enable_billing: false, deployment_mode: "self_hosted" },
      providers_configured: [],
      updated_at: expect.any(String),
    });
  });
});
