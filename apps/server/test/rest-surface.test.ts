import {
  appRouter,
  createContextInner,
  createOpenApiDocument,
  HttpStatus,
  procedureMetas,
} from "@sandbox-server/core";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { webhookAllowPrivateNetworks: true } });
});
afterAll(async () => {
  await t.close();
});

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected structurally
  body: any;
}

async function call(
  method: string,
  path: string,
  options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? ADMIN_KEY : options.key;
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** `level` 50 (error) and above: what an operator would be paged for. */
function internalErrorLines(): string[] {
  return t
    .logs()
    .split("\n")
    .filter((line) => /"level":(50|60)/.test(line));
}

const message = { role: "user", content: [{ type: "text", text: "echo via-rest" }], run: true };

describe("every procedure is served at its REST path with its success status", () => {
  it("answers each operation of the OpenAPI document, and nothing is left out", async () => {
    const successOf = new Map<string, number>();
    for (const meta of procedureMetas().values()) {
      if (!meta.openapi) continue;
      const key = `${meta.openapi.method} ${meta.openapi.path}`;
      successOf.set(key, meta.successStatus ?? HttpStatus.OK);
    }
    const covered = new Set<string>();
    const expectOk = async (
      operation: string,
      options: {
        params?: Record<string, string>;
        query?: string;
        body?: unknown;
        key?: string;
      } = {},
    ) => {
      const [method = "", template = ""] = operation.split(" ");
      let path = template;
      for (const [name, value] of Object.entries(options.params ?? {})) {
        path = path.replace(`{${name}}`, encodeURIComponent(value));
      }
      const expected = successOf.get(operation);
      expect(expected, `${operation} is no REST operation`).toBeDefined();
      const res = await call(method, `/api/v1${path}${options.query ?? ""}`, {
        body: options.body,
        ...(options.key ? { key: options.key } : {}),
      });
      expect(res.status, `${operation}: ${JSON.stringify(res.body)}`).toBe(expected);
      covered.add(operation);
      return res.body;
    };

    const user = await expectOk("POST /users", { body: { name: "rest-surface" } });
    const key = user.api_key;
    await expectOk("GET /users/me", { key });
    const spare = await expectOk("POST /users/me/api-keys", { body: { name: "spare" }, key });
    await expectOk("GET /users/me/api-keys", { key });
    await expectOk("DELETE /users/me/api-keys/{id}", { params: { id: spare.id }, key });
    const userId = { id: user.id };
    await expectOk("GET /users");
    await expectOk("GET /users/{id}", { params: userId });
    await expectOk("POST /users/{id}/disable", { params: userId });
    await expectOk("POST /users/{id}/enable", { params: userId });

    await expectOk("GET /sandbox-specs/search");
    const sandbox = await expectOk("POST /sandboxes", { body: { labels: { suite: "rest" } } });
    const id = { id: sandbox.id };
    await expectOk("GET /sandboxes/search", { query: "?label=suite%3Drest" });
    await expectOk("GET /sandboxes/{id}", { params: id });
    await expectOk("GET /sandboxes", { query: `?id=${sandbox.id}` });
    const running = (await t.waitForStatus(sandbox.id, "RUNNING")).body;
    // A runtime that cannot change a policy live answers 501: a stand-in takes the call there.
    const runtime: SandboxRuntime = t.runtime;
    runtime.setEgressPolicy ??= async () => undefined;
    await expectOk("PATCH /sandboxes/{id}/network", {
      params: id,
      body: { deny_out: ["*.example.com"] },
    });
    // Sandbox-scoped: the sandbox's session key, no API key.
    for (const [operation, params] of [
      ["GET /sandboxes/{id}/settings/secrets", id],
      ["GET /sandboxes/{id}/settings/secrets/{secret_name}", { ...id, secret_name: "X" }],
    ] as const) {
      let path = operation.split(" ")[1] ?? "";
      for (const [name, value] of Object.entries(params)) path = path.replace(`{${name}}`, value);
      const res = await call("GET", `/api/v1${path}`, {
        key: null,
        headers: { "x-session-api-key": running.session_api_key },
      });
      // The list answers its success; no secret exists, so a name is 404 past the same check.
      expect(res.status, operation).toBe(path.endsWith("/X") ? 404 : successOf.get(operation));
      covered.add(operation);
    }
    await expectOk("GET /settings");
    await expectOk("GET /web-client/config");

    const conversation = await expectOk("POST /app-conversations", {
      body: { sandbox_id: sandbox.id },
    });
    await expectOk("GET /app-conversations");
    await expectOk("GET /app-conversations/{id}", { params: { id: conversation.id } });
    const sent = await expectOk("POST /app-conversations/{conversation_id}/send-message", {
      params: { conversation_id: conversation.id },
      body: message,
    });
    expect(sent).toEqual({ success: true, sandbox_status: "RUNNING", message: null });
    await expectOk("GET /app-conversations/{id}/events", { params: { id: conversation.id } });
    // OpenHands' conversation operations.
    const byId = { conversation_id: conversation.id };
    await expectOk("GET /app-conversations/search", { query: "?limit=5" });
    await expectOk("GET /app-conversations/count");
    await expectOk("GET /app-conversations/start-tasks", { query: `?ids=${conversation.id}` });
    await expectOk("GET /app-conversations/start-tasks/search");
    await expectOk("GET /app-conversations/start-tasks/count");
    await expectOk("GET /conversation/{conversation_id}/events/search", { params: byId });
    await expectOk("GET /conversation/{conversation_id}/events/count", { params: byId });
    await expectOk("PATCH /app-conversations/{id}", {
      params: { id: conversation.id },
      body: { title: "renamed" },
    });
    const streamed = await expectOk("POST /app-conversations/stream-start", {
      body: { sandbox_id: sandbox.id },
    });
    await expectOk("DELETE /app-conversations/{id}", {
      params: { id: streamed.at(-1).app_conversation_id },
    });

    const webhook = await expectOk("POST /webhooks", { body: { url: "http://127.0.0.1:9/hook" } });
    const hook = { id: webhook.id };
    await expectOk("GET /webhooks");
    await expectOk("GET /webhooks/{id}", { params: hook });
    await expectOk("GET /webhooks/{id}/deliveries", { params: hook });
    await expectOk("DELETE /webhooks/{id}", { params: hook });

    // Bodiless POSTs need no content type.
    await expectOk("POST /sandboxes/{id}/pause", { params: id });
    await expectOk("POST /sandboxes/{id}/resume", { params: id });
    await expectOk("POST /sandboxes/{id}/timeout", { params: id, body: { timeout_s: 3600 } });
    await expectOk("GET /sandboxes/{id}/ports/{port}", {
      params: { ...id, port: "8080" },
      query: "?expires_in_s=60",
    });
    await expectOk("DELETE /sandboxes/{id}", { params: id });
    const another = await expectOk("POST /sandboxes", { query: "?sandbox_spec_id=default" });
    await expectOk("DELETE /sandboxes", { query: `?sandbox_id=${another.id}` });
    await expectOk("DELETE /users/{id}", { params: userId });

    expect([...covered].sort()).toEqual([...successOf.keys()].sort());
    const documented = Object.entries(createOpenApiDocument("").paths ?? {}).flatMap(
      ([path, item]) => Object.keys(item ?? {}).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(
      [...successOf.keys()].map((k) => k.replace(" /", " /api/v1/")).sort(),
    );
  });
});

describe("path parameters, query strings and bodies", () => {
  let sandboxId: string;
  let conversationId: string;
  beforeAll(async () => {
    const created = await call("POST", "/api/v1/app-conversations", { body: {} });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    sandboxId = created.body.sandbox_id;
    conversationId = created.body.id;
  });

  it("percent-decodes path parameters; a broken escape is 422", async () => {
    const encoded = [...sandboxId].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
    const read = await call("GET", `/api/v1/sandboxes/${encoded}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(sandboxId);
    // An encoded slash stays inside the one segment: the route matched, the id is unknown.
    const slash = await call("GET", `/api/v1/sandboxes/${sandboxId}%2Fpause`);
    expect(slash.status).toBe(404);
    expect(slash.body.code).toBe("SANDBOX_NOT_FOUND");
    const broken = await call("GET", "/api/v1/sandboxes/sb_%E0%A4%A");
    expect(broken.status).toBe(422);
    expect(broken.body.issues[0].path).toEqual(["id"]);
    const upper = await call("GET", `/api/v1/app-conversations/${conversationId.toUpperCase()}`);
    expect(upper.status).toBe(200);
    expect((await call("GET", "/api/v1/app-conversations/not-a-uuid")).status).toBe(422);
  });

  it("coerces query values only where the schema says so; a repeated key is an array (422)", async () => {
    const second = await call("POST", "/api/v1/app-conversations", {
      body: { sandbox_id: sandboxId },
    });
    expect(second.status).toBe(201);
    const page = await call("GET", `/api/v1/app-conversations?sandbox_id=${sandboxId}&limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.next_page_id).toEqual(expect.any(String));
    const next = await call(
      "GET",
      `/api/v1/app-conversations?sandbox_id=${sandboxId}&limit=1&page_id=${page.body.next_page_id}`,
    );
    expect(next.body.items).toHaveLength(1);
    expect(next.body.items[0].id).not.toBe(page.body.items[0].id);
    const archived = await call(
      "GET",
      `/api/v1/app-conversations?archived=false&sandbox_id=${sandboxId}`,
    );
    expect(archived.body.items).toHaveLength(2);
    for (const query of ["limit=abc", "limit=1&limit=2", "archived=yes", "sort_order=up"]) {
      const res = await call("GET", `/api/v1/app-conversations?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.code).toBe("VALIDATION_FAILED");
    }
    // `+` and escapes decode as in any form-encoded query.
    const title = await call("GET", "/api/v1/app-conversations?title__contains=no+such%20title");
    expect(title).toMatchObject({ status: 200, body: { items: [] } });
  });

  it("never coerces JSON bodies, on either surface (bodies validate as on the agent server)", async () => {
    const path = `/api/v1/app-conversations/${conversationId}/send-message`;
    const rest = await call("POST", path, { body: { ...message, run: "yes" } });
    expect(rest.status).toBe(422);
    expect(rest.body.issues[0].path).toEqual(["run"]);
    const trpc = await t.trpc("mutation", "conversations.sendMessage", {
      ...message,
      run: "yes",
      conversation_id: conversationId,
    });
    expect(trpc.status).toBe(422);
    // A query-style schema elsewhere was not changed by a REST request either.
    const started = await call("POST", "/api/v1/sandboxes", { body: { labels: { n: 5 } } });
    expect(started.status).toBe(422);
  });

  it("answers unknown paths with 404 and known paths with the wrong method with 405, in JSON", async () => {
    const unknown = await call("GET", "/api/v1/nothing/here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: "NOT_FOUND", message: "Not found", detail: "Not found" });
    const put = await call("PUT", "/api/v1/sandboxes", { body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE, HEAD");
    expect(put.body.code).toBe("METHOD_NOT_ALLOWED");
    const post = await call("POST", `/api/v1/app-conversations/${conversationId}`);
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, DELETE, PATCH, HEAD");
    // Paths are case-sensitive, as the document declares them.
    expect((await call("GET", "/api/v1/Sandboxes/search")).status).toBe(404);
    // A trailing slash is ignored.
    expect((await call("GET", "/api/v1/sandboxes/search/")).status).toBe(200);
    const head = await fetch(`${t.url}/api/v1/users/me`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(head.status).toBe(200);
  });
});

describe("tRPC error codes come from the same table", () => {
  it("sends the table's JSON-RPC code, our code in data.code and the real status in data.httpStatus", async () => {
    const missing = await t.trpc("query", "sandboxes.get", { id: "sb_no_such_sandbox" });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      code: -32004,
      data: { code: "SANDBOX_NOT_FOUND", httpStatus: 404 },
    });
    const unauthorized = await t.trpc("query", "users.me", {}, null);
    expect(unauthorized.body).toMatchObject({ code: -32001, data: { httpStatus: 401 } });
    const invalid = await t.trpc("mutation", "sandboxes.start", { labels: { a: 1 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({
      code: -32600,
      data: { code: "VALIDATION_FAILED", httpStatus: 422 },
    });
  });

  it("carries 410 for an archived conversation (tRPC has no 410 of its own)", async () => {
    const created = await call("POST", "/api/v1/app-conversations", { body: {} });
    expect((await call("DELETE", `/api/v1/sandboxes/${created.body.sandbox_id}`)).status).toBe(200);
    const res = await t.trpc("mutation", "conversations.sendMessage", {
      ...message,
      conversation_id: created.body.id,
    });
    expect(res.status).toBe(410);
    expect(res.body).toMatchObject({
      code: -32012,
      message: expect.stringContaining("archived"),
      data: { code: "CONVERSATION_ARCHIVED", httpStatus: 410 },
    });
  });

  it("gives server-side callers (createCaller) a TRPCError with the table's code and our error as cause", async () => {
    const ctx = await createContextInner({ deps: t.server.core.deps, apiKey: ADMIN_KEY });
    const failure = await appRouter
      .createCaller(ctx)
      .sandboxes.get({ id: "sb_no_such_sandbox" })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: "NOT_FOUND", cause: { code: "SANDBOX_NOT_FOUND" } });
  });
});

describe("logging", () => {
  it("logs no internal error for 4xx and 503 answers, on either surface", async () => {
    const before = internalErrorLines().length;
    const repo = t.server.core.deps.repos.sandboxes;
    const original = repo.search;
    const storeError = (name: string) => () => {
      const error = new Error("the store said no");
      error.name = name;
      throw error;
    };
    try {
      repo.search = storeError("StoreBusyError");
      const busy = await call("GET", "/api/v1/sandboxes/search");
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(busy.body).toEqual({
        code: "STORE_BUSY",
        message: "The database is busy; retry shortly",
        detail: "The database is busy; retry shortly",
      });
      const busyTrpc = await fetch(`${t.url}/trpc/sandboxes.search?input=%7B%7D`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      expect(busyTrpc.status).toBe(503);
      expect(busyTrpc.headers.get("retry-after")).toBe("1");
      const busyBody = (await busyTrpc.json()) as { error: { data: { code: string } } };
      expect(busyBody.error.data.code).toBe("STORE_BUSY");
      repo.search = storeError("StoreUnavailableError");
      const down = await call("GET", "/api/v1/sandboxes/search");
      expect(down.status).toBe(503);
      expect(down.body.code).toBe("STORE_UNAVAILABLE");
      expect(down.headers.get("retry-after")).toBeNull();
    } finally {
      repo.search = original;
    }
    const answers = [
      await call("GET", "/api/v1/sandboxes/sb_nope"),
      await call("GET", "/api/v1/users/me", { key: "ssk_wrong" }),
      await call("POST", "/api/v1/users", { body: { name: 5 } }),
      await call("PUT", "/api/v1/users/me"),
      await t.trpc("query", "sandboxes.get", { id: "sb_nope" }),
      await t.trpc("mutation", "sandboxes.start", { labels: 5 }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 401, 422, 405, 404, 422]);
    expect(internalErrorLines().slice(before)).toEqual([]);
  });

  it("logs an unknown error once, with its cause, and answers a generic 500", async () => {
    const before = internalErrorLines().length;
    const repo = t.server.core.deps.repos.sandboxes;
    const original = repo.search;
    repo.search = () => {
      throw new Error("disk on fire at /srv/db.ts:42");
    };
    try {
      const res = await call("GET", "/api/v1/sandboxes/search");
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        code: "INTERNAL",
        message: "Internal server error",
        detail: "Internal server error",
      });
    } finally {
      repo.search = original;
    }
    const logged = internalErrorLines().slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain("disk on fire");
    expect(logged[0]).toContain('"procedure":"sandboxes.search"');
  });
});
