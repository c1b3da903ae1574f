import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { appRouter } from "@sandbox-server/core";
import { hostAddressOf } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socketOutcome } from "./lib/agent-socket";
import { type ApiResponse, isErrorBody, rawRequest } from "./lib/api";
import { validValue } from "./lib/json-schema-arbitraries";
import { type OpenApiDocument, readOperations } from "./lib/operation-cases";
import { listAgentServer, listAll, userMessageTexts } from "./lib/pages";
import { type Receiver, startReceiver } from "./lib/receiver";
import { agentServerPid, listeningSockets, sandboxDirs } from "./lib/sandboxes";
import { ADMIN_KEY, type ServerProcess, startServerProcess } from "./lib/server-process";

// biome-ignore lint/suspicious/noExplicitAny: API bodies are inspected structurally
type Body = any;

const MARKER = `secret-body-${randomBytes(8).toString("hex")}`;
// Standard Webhooks: whsec_ + base64 of the key bytes.
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const WRONG_KEYS = [
  `ssk_${randomBytes(24).toString("base64url")}`,
  `${ADMIN_KEY}x`,
  ADMIN_KEY.slice(0, -1),
  "x".repeat(5000),
];

let server: ServerProcess;
let doc: OpenApiDocument;
let alice: string;
let bob: string;
let aliceConv: Body;
let aliceSandbox: Body;
let bobConv: Body;
let aliceHook: Body;
let aliceReceiver: Receiver;
let bobReceiver: Receiver;

beforeAll(async () => {
  server = await startServerProcess({
    env: {
      LOG_LEVEL: "trace",
      WEBHOOK_BACKOFF_BASE_MS: "200",
      WEBHOOK_BACKOFF_MAX_MS: "1000",
      // The receivers listen on 127.0.0.1.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  });
  doc = (await server.api("GET", "/api/v1/openapi.json", { key: null })).body;
  alice = (await server.api("POST", "/api/v1/users", { body: { name: "alice" } })).body.api_key;
  bob = (await server.api("POST", "/api/v1/users", { body: { name: "bob" } })).body.api_key;
  aliceReceiver = await startReceiver();
  bobReceiver = await startReceiver();
  bobConv = (await server.api("POST", "/api/v1/app-conversations", { key: bob, body: {} })).body;
  await server.api("POST", "/api/v1/webhooks", { key: bob, body: { url: bobReceiver.url } });
  await server.api("POST", `/api/v1/app-conversations/${bobConv.id}/send-message`, {
    key: bob,
    body: { content: [{ type: "text", text: "echo bob" }], run: true },
  });
  aliceConv = (
    await server.api("POST", "/api/v1/app-conversations", {
      key: alice,
      body: {
        title: "alice's",
        initial_message: { content: [{ type: "text", text: `echo ${MARKER}` }], run: true },
      },
    })
  ).body;
  aliceHook = (
    await server.api("POST", "/api/v1/webhooks", {
      key: alice,
      body: { url: aliceReceiver.url, conversation_id: aliceConv.id, secret: WEBHOOK_SECRET },
    })
  ).body;
  const started = await server.api("POST", "/api/v1/sandboxes", {
    key: alice,
    body: { labels: { team: "a" } },
  });
  aliceSandbox = started.body;
  await waitFor(async () => (await readSandbox(aliceSandbox.id, alice)).status === "RUNNING");
  aliceSandbox = await readSandbox(aliceSandbox.id, alice);
  const sent = await server.api("POST", `/api/v1/app-conversations/${aliceConv.id}/send-message`, {
    key: alice,
    body: { content: [{ type: "text", text: `echo ${MARKER}-2` }], run: true },
  });
  expect(sent.status).toBe(200);
});

afterAll(async () => {
  await server?.dispose();
  await aliceReceiver?.close();
  await bobReceiver?.close();
});

async function readSandbox(id: string, key: string): Promise<Body> {
  return (await server.api("GET", `/api/v1/sandboxes/${id}`, { key })).body;
}

// A loop of its own, not expect.poll: it also waits in beforeAll, where expect.poll is refused.
async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("condition not reached in time");
}

/** A well-formed request for the operation (alice's ids), so only the key can be wrong. */
function wellFormed(opIndex: number) {
  const { operations, resolve } = readOperations(doc);
  const op = operations[opIndex]!;
  let url = op.path;
  for (const p of op.parameters.filter((x) => x.in === "path")) {
    const value =
      p.schema.format === "uuid"
        ? aliceConv.id
        : op.path.startsWith("/api/v1/webhooks")
          ? aliceHook.id
          : aliceSandbox.id;
    url = url.replace(`{${p.name}}`, value);
  }
  const body = op.body ? JSON.stringify(validValue(op.body, resolve)) : undefined;
  return { op, url, body };
}

describe("authentication", () => {
  it("every REST operation refuses a missing, wrong or malformed key with 401 and a JSON code", async () => {
    const { operations } = readOperations(doc);
    expect(operations.length).toBeGreaterThanOrEqual(13);
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString("base64")}` },
      { authorization: ADMIN_KEY },
      ...WRONG_KEYS.map((k) => ({ authorization: `Bearer ${k}` })),
      ...WRONG_KEYS.map((k) => ({ "x-api-key": k })),
    ];
    const failures: string[] = [];
    for (let i = 0; i < operations.length; i++) {
      const { op, url, body } = wellFormed(i);
      // Public by design, as the document says (OpenHands' web client config); operations a
      // sandbox calls with its session key are refused here too (no such key is sent).
      if (op.auth === "public") continue;
      for (const headers of headerSets) {
        const res = await rawRequest(`${server.url}${url}`, {
          method: op.method,
          headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
          body,
        });
        if (res.status !== 401 || !isErrorBody(res) || res.body.code !== "UNAUTHORIZED") {
          failures.push(
            `${op.method} ${url} ${JSON.stringify(headers).slice(0, 60)}: ${res.status} ${res.text.slice(0, 100)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    // Nothing was done on the way: alice's sandbox still runs.
    expect((await readSandbox(aliceSandbox.id, alice)).status).toBe("RUNNING");
  });

  it("every tRPC procedure refuses a missing or wrong key with 401", async () => {
    const procedures = appRouter._def.procedures as unknown as Record<
      string,
      { _def: { type: string; meta?: { openapi?: { protect?: boolean } } } }
    >;
    const failures: string[] = [];
    for (const [name, procedure] of Object.entries(procedures)) {
      // Not API-key procedures: public ones, and those a sandbox calls with its session key
      // (their REST paths are checked above: 401 without that key).
      if (procedure._def.meta?.openapi?.protect === false) continue;
      for (const key of [null, WRONG_KEYS[0]]) {
        const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
        const res =
          procedure._def.type === "query"
            ? await rawRequest(`${server.url}/trpc/${name}?input=${encodeURIComponent("{}")}`, {
                method: "GET",
                headers,
              })
            : await rawRequest(`${server.url}/trpc/${name}`, {
                method: "POST",
                headers: { ...headers, "content-type": "application/json" },
                body: "{}",
              });
        if (res.status !== 401) failures.push(`${name} key=${key !== null}: ${res.status}`);
      }
    }
    expect(Object.keys(procedures).length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});

describe("isolation between users", () => {
  const leaks = (res: ApiResponse) =>
    [
      aliceConv.id,
      aliceConv.sandbox_id,
      aliceSandbox.id,
      aliceConv.session_api_key,
      aliceSandbox.session_api_key,
      aliceHook.id,
    ].filter((s) => res.text.includes(s));

  it("bob can neither read, pause, resume, delete, message nor subscribe to alice's things", async () => {
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/v1/app-conversations/${aliceConv.id}`],
      ["GET", `/api/v1/app-conversations/${aliceConv.id}/events`],
      [
        "POST",
        `/api/v1/app-conversations/${aliceConv.id}/send-message`,
        { content: [{ type: "text", text: "hi" }] },
      ],
      ["POST", "/api/v1/app-conversations", { sandbox_id: aliceSandbox.id }],
      ["POST", "/api/v1/app-conversations", { sandbox_id: aliceConv.sandbox_id }],
      ["GET", `/api/v1/sandboxes/${aliceSandbox.id}`],
      ["POST", `/api/v1/sandboxes/${aliceSandbox.id}/pause`],
      ["POST", `/api/v1/sandboxes/${aliceConv.sandbox_id}/pause`],
      ["POST", `/api/v1/sandboxes/${aliceSandbox.id}/resume`],
      ["DELETE", `/api/v1/sandboxes/${aliceSandbox.id}`],
      ["DELETE", `/api/v1/sandboxes/${aliceConv.sandbox_id}`],
      ["POST", "/api/v1/webhooks", { url: bobReceiver.url, conversation_id: aliceConv.id }],
      ["GET", `/api/v1/webhooks/${aliceHook.id}`],
      ["GET", `/api/v1/webhooks/${aliceHook.id}/deliveries`],
      ["DELETE", `/api/v1/webhooks/${aliceHook.id}`],
    ];
    const failures: string[] = [];
    for (const [method, route, body] of attempts) {
      const res = await server.api(method, route, { key: bob, body });
      // Exactly what an id that never existed gets: 404 and a *_NOT_FOUND code, nothing of alice's.
      const found =
        res.status !== 404 || !isErrorBody(res) || !String(res.body.code).endsWith("NOT_FOUND");
      const echoed = leaks(res).filter(
        (s) => !route.includes(s) && !JSON.stringify(body ?? "").includes(s),
      );
      if (found || echoed.length > 0)
        failures.push(`${method} ${route}: ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
    // Alice's things are untouched.
    expect((await readSandbox(aliceSandbox.id, alice)).status).toBe("RUNNING");
    expect((await readSandbox(aliceConv.sandbox_id, alice)).status).toBe("RUNNING");
    expect(
      (await server.api("GET", `/api/v1/webhooks/${aliceHook.id}`, { key: alice })).status,
    ).toBe(200);
  });

  it("nothing of alice's appears in bob's lists, filters or counts", async () => {
    const lists = [
      "/api/v1/app-conversations",
      `/api/v1/app-conversations?sandbox_id=${aliceConv.sandbox_id}`,
      "/api/v1/app-conversations?title__contains=alice",
      "/api/v1/sandboxes/search",
      "/api/v1/sandboxes/search?label=team%3Da",
      "/api/v1/webhooks",
    ];
    for (const route of lists) {
      const items = await listAll(server.api, route, bob);
      const text = JSON.stringify(items);
      for (const secret of [aliceConv.id, aliceConv.sandbox_id, aliceSandbox.id, aliceHook.id]) {
        expect(text.includes(secret), `${route} shows ${secret}`).toBe(false);
      }
    }
    expect((await listAll(server.api, "/api/v1/app-conversations", bob)).map((c) => c.id)).toEqual([
      bobConv.id,
    ]);
    expect((await listAll(server.api, "/api/v1/sandboxes/search", bob)).map((s) => s.id)).toEqual([
      bobConv.sandbox_id,
    ]);
  });

  it("bob's webhook never receives alice's events, while alice's does", async () => {
    await waitFor(async () =>
      aliceReceiver.received.some((d) => JSON.stringify(d.payload).includes(MARKER)),
    );
    for (const delivery of bobReceiver.received) {
      const text = JSON.stringify(delivery.payload);
      expect(
        text.includes(aliceConv.id) || text.includes(aliceSandbox.id) || text.includes(MARKER),
        text,
      ).toBe(false);
    }
    // Bob's own conversation's events do reach him (the check above is not vacuous).
    await waitFor(async () =>
      bobReceiver.received.some((d) => JSON.stringify(d.payload).includes(bobConv.id)),
    );
  });
});

describe("agent servers", () => {
  it("a session key opens only its own sandbox's agent server (REST and WebSocket)", async () => {
    const other = aliceSandbox;
    const target = await readSandbox(aliceConv.sandbox_id, alice);
    for (const key of [other.session_api_key, bobConv.session_api_key, "", "wrong"]) {
      const headers = key ? { "x-session-api-key": key } : undefined;
      const search = await fetch(`${target.agent_server_url}/api/conversations/search`, {
        headers,
      });
      expect(search.status).toBe(401);
      const send = await fetch(
        `${target.agent_server_url}/api/conversations/${aliceConv.id}/events`,
        {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ content: [{ type: "text", text: "intruder" }] }),
        },
      );
      expect(send.status).toBe(401);
      const closed = await socketOutcome(target.agent_server_url, aliceConv.id, key);
      expect(closed, `WebSocket with key ${key.slice(0, 6)}`).toMatch(/^(close 4001|refused 401)$/);
    }
    // The right key works, and no intruder message got in.
    const events = await listAgentServer(
      `${aliceConv.conversation_url}/events/search`,
      target.session_api_key,
    );
    expect(userMessageTexts(events)).not.toContain("intruder");
    expect(await socketOutcome(target.agent_server_url, aliceConv.id, target.session_api_key)).toBe(
      "open",
    );
  });

  it("agent servers listen on 127.0.0.1 or their own veth address only, the control plane on 127.0.0.1 and the host ends of the pairs", async () => {
    const sandboxes = [aliceConv.sandbox_id, aliceSandbox.id, bobConv.sandbox_id];
    // The host's end of each pair: the sandbox's resolver and egress proxy (ADR 0030, 0031).
    const hostEnds: string[] = [];
    for (const id of sandboxes) {
      const sockets = listeningSockets(await agentServerPid(server.dataDir, id));
      // A namespace's veth address, which only the host reaches (ADR 0030).
      const state = JSON.parse(
        readFileSync(path.join(server.dataDir, "sandboxes", id, "sandbox.json"), "utf8"),
      );
      const address: string | undefined = state.network?.address ?? undefined;
      if (address) hostEnds.push(hostAddressOf(address));
      const own = ["127.0.0.1", address].filter(Boolean);
      expect(sockets.length, id).toBeGreaterThan(0);
      expect(
        sockets.filter((s) => !own.includes(s.address)),
        id,
      ).toEqual([]);
    }
    const own = listeningSockets(server.pid);
    expect(own.length).toBeGreaterThan(0);
    expect(own.filter((s) => s.address !== "127.0.0.1" && !hostEnds.includes(s.address))).toEqual(
      [],
    );
  });

  it("keeps session keys in files only its owner can read", () => {
    const root = path.join(server.dataDir, "sandboxes");
    for (const id of sandboxDirs(server.dataDir)) {
      expect((statSync(path.join(root, id, "secrets.json")).mode & 0o077).toString(8), id).toBe(
        "0",
      );
    }
  });
});

describe("logs", () => {
  it("never contain API keys, session keys, webhook secrets or message bodies", async () => {
    // The control plane logged at trace level throughout this file.
    const controlPlane = server.output();
    expect(controlPlane.length).toBeGreaterThan(1000);
    const sandboxes = await listAll(server.api, "/api/v1/sandboxes/search", alice);
    const sessionKeys = [
      ...sandboxes,
      ...(await listAll(server.api, "/api/v1/sandboxes/search", bob)),
    ]
      .map((s) => s.session_api_key as string)
      .filter(Boolean);
    expect(sessionKeys.length).toBe(3);
    const secrets: Record<string, string> = {
      "admin key": ADMIN_KEY,
      "alice's key": alice,
      "bob's key": bob,
      "webhook secret": WEBHOOK_SECRET,
      "message body": MARKER,
      ...Object.fromEntries(WRONG_KEYS.slice(0, 2).map((k, i) => [`wrong key ${i}`, k])),
      ...Object.fromEntries(sessionKeys.map((k, i) => [`session key ${i}`, k])),
    };
    const found = Object.entries(secrets)
      .filter(([, value]) => controlPlane.includes(value))
      .map(([name]) => name);
    expect(found, "in the control plane's output").toEqual([]);

    // The agent servers' own logs never hold a key either.
    const root = path.join(server.dataDir, "sandboxes");
    for (const id of sandboxDirs(server.dataDir)) {
      const log = readFileSync(path.join(root, id, "agent-server.log"), "utf8");
      const inLog = Object.entries(secrets)
        .filter(([name]) => name !== "message body")
        .filter(([, value]) => log.includes(value))
        .map(([name]) => name);
      expect(inLog, `in ${id}/agent-server.log`).toEqual([]);
    }
  });
});
