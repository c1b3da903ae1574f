import http from "node:http";
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { derivePortUrlKey } from "../src/port-url-key";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";
import { startPortAppCommand } from "./port-app";

/*
 * Port URLs end to end, on the suite's runtime: an app started inside a real sandbox, reached
 * through its signed URL over HTTP and WebSocket; every refusal preceded by the same request
 * succeeding with a good token.
 */
const APP_PORT = 8123;
let clock = Date.now();
let t: TestServer;
let plain: { id: string; url: string };
let resumable: { id: string; url: string };

/** `*.localhost` is loopback, as browsers and curl resolve it. */
const loopback: LookupFunction = (_host, options, callback) => {
  if (options.all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else callback(null, "127.0.0.1", 4);
};

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request on a connection of its own (a proxied connection stays its first request's). */
function open(url: string, options: { method?: string; body?: Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? "GET", lookup: loopback, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const json = (answer: Answer) => JSON.parse(answer.body.toString());

/** The URL's host with one part of its label replaced: [port, id, token]. */
function withLabel(url: string, change: (parts: string[]) => string[]): string {
  const parsed = new URL(url);
  const [label, ...rest] = parsed.hostname.split(".");
  const parts = /^p([0-9]+)-([0-9a-z]+)-([0-9a-z]+)$/.exec(label as string)?.slice(1) ?? [];
  const next = change(parts);
  const host = [next.length === 3 ? `p${next[0]}-${next[1]}-${next[2]}` : `p${next[0]}-${next[1]}`];
  parsed.hostname = [...host, ...rest].join(".");
  return parsed.toString();
}

async function startApp(body: Record<string, unknown>, address = "127.0.0.1") {
  const created = await t.api("POST", "/api/v1/sandboxes", { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const sandbox = (await t.waitForStatus(created.body.id, "RUNNING")).body;
  const run = await fetch(`${sandbox.agent_server_url}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-api-key": sandbox.session_api_key },
    body: JSON.stringify({ command: startPortAppCommand(APP_PORT, address), timeout: 30 }),
  });
  expect(((await run.json()) as { exit_code: number }).exit_code).toBe(0);
  const port = await t.api("GET", `/api/v1/sandboxes/${sandbox.id}/ports/${APP_PORT}`);
  expect(port.status, JSON.stringify(port.body)).toBe(200);
  return { id: sandbox.id as string, url: port.body.url as string };
}

/** How many port URL connections /metrics counts with `outcome` and a first request of `kind`. */
async function portConnections(outcome: string, kind = "request"): Promise<number> {
  const res = await fetch(`${t.url}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  const series = `sandbox_server_port_connections_total{kind="${kind}",outcome="${outcome}"} `;
  const line = (await res.text()).split("\n").find((l) => l.startsWith(series));
  return line ? Number(line.slice(series.length)) : 0;
}

beforeAll(async () => {
  t = await startTestServer({ now: () => clock });
  plain = await startApp({ ports: [{ port: APP_PORT, name: "WEB" }] });
  resumable = await startApp({ auto_resume: true });
});
afterAll(async () => {
  await t.close();
});

describe("port URLs", () => {
  it("answer {port, url, expires_at} on both surfaces, an hour by default", async () => {
    const rest = await t.api("GET", `/api/v1/sandboxes/${plain.id}/ports/${APP_PORT}`);
    expect(rest.body).toEqual({
      port: APP_PORT,
      url: expect.stringMatching(/^http:\/\/p8123-[0-9a-z]{26}-[0-9a-z]{26}\.localhost:\d+\/$/),
      expires_at: new Date(Math.floor(clock / 1000 + 3600) * 1000).toISOString(),
    });
    const trpc = await t.trpc("query", "sandboxes.getPort", {
      id: plain.id,
      port: APP_PORT,
      expires_in_s: 60,
    });
    expect(trpc.body).toMatchObject({ port: APP_PORT, url: expect.any(String) });
  });

  it("refuse bad ports and lifetimes with 422", async () => {
    const agentPort = t.runtime.agentServerPort;
    const sandbox = (await t.api("GET", `/api/v1/sandboxes/${plain.id}`)).body;
    const own = agentPort ?? Number(new URL(sandbox.agent_server_url).port);
    for (const route of [
      `/ports/0`,
      `/ports/65536`,
      `/ports/${APP_PORT}?expires_in_s=604801`,
      `/ports/${APP_PORT}?expires_in_s=0`,
      `/ports/${own}`,
    ]) {
      const answer = await t.api("GET", `/api/v1/sandboxes/${plain.id}${route}`);
      expect(answer.status, route).toBe(422);
    }
    expect((await t.api("GET", `/api/v1/sandboxes/sb_nope/ports/${APP_PORT}`)).status).toBe(404);
  });

  it("reach the app: any path, large bodies both ways, the Host as the browser sent it", async () => {
    const page = await open(`${plain.url}some/absolute/path?x=1`);
    expect(page.status).toBe(200);
    expect(json(page)).toMatchObject({
      method: "GET",
      path: "/some/absolute/path?x=1",
      host: new URL(plain.url).host,
    });
    const big = await open(`${plain.url}bytes?kib=4096`);
    expect(big.body.length).toBe(4096 * 1024);
    const upload = await open(`${plain.url}upload`, {
      method: "POST",
      body: Buffer.alloc(3 * 1024 * 1024, 1),
    });
    expect(json(upload).received).toBe(3 * 1024 * 1024);
  });

  it("carry a WebSocket", async () => {
    const upgrades = await portConnections("tunnel", "upgrade");
    const socket = new WebSocket(`${plain.url.replace(/^http/, "ws")}ws`, { lookup: loopback });
    const reply = await new Promise<string>((resolve, reject) => {
      socket.once("open", () => socket.send("hello"));
      socket.once("message", (data) => resolve(data.toString()));
      socket.once("error", reject);
    });
    expect(reply).toBe("echo:hello");
    socket.close();
    expect(await portConnections("tunnel", "upgrade")).toBe(upgrades + 1);
  });

  it("reach an app on all addresses directly, one on the sandbox's loopback through the tunnel", async () => {
    const wide = await startApp({}, "0.0.0.0");
    // Where the runtime gives no sandbox address (pasta, a remote Docker host), only the tunnel.
    const direct = (await t.runtime.addressOf?.(wide.id)) ? 1 : 0;
    const before = {
      direct: await portConnections("direct"),
      tunnel: await portConnections("tunnel"),
    };
    expect((await open(`${wide.url}wide`)).status).toBe(200);
    expect(await portConnections("direct")).toBe(before.direct + direct);
    expect(await portConnections("tunnel")).toBe(before.tunnel + 1 - direct);
    const page = await open(`${plain.url}loopback`);
    expect(json(page).path).toBe("/loopback");
    expect(await portConnections("direct")).toBe(before.direct + direct);
    expect(await portConnections("tunnel")).toBe(before.tunnel + 2 - direct);
    await t.api("DELETE", `/api/v1/sandboxes/${wide.id}`);
  });

  it("are listed in exposed_urls under their declared names, working", async () => {
    const sandbox = (await t.api("GET", `/api/v1/sandboxes/${plain.id}`)).body;
    expect(sandbox.exposed_urls.map((u: { name: string }) => u.name)).toEqual([
      "AGENT_SERVER",
      "WEB",
    ]);
    const web = sandbox.exposed_urls[1];
    expect(web.port).toBe(APP_PORT);
    expect((await open(`${web.url}x`)).status).toBe(200);
    expect(sandbox.auto_resume).toBe(false);
  });

  it("count as activity", async () => {
    t.server.core.deps.activity.delete(plain.id);
    expect((await open(plain.url)).status).toBe(200);
    expect(t.server.core.deps.activity.get(plain.id)).toBe(clock);
  });

  it("refuse a host without a token (401), another sandbox's or port's token (403)", async () => {
    expect((await open(plain.url)).status).toBe(200);
    const missing = await open(withLabel(plain.url, ([port, id]) => [port, id] as string[]));
    expect(missing.status).toBe(401);
    expect(json(missing)).toMatchObject({ code: "PORT_URL_TOKEN_MISSING" });
    const otherId = withLabel(resumable.url, (p) => p).match(/-([0-9a-z]{26})-/)?.[1] as string;
    const otherSandbox = await open(
      withLabel(plain.url, ([port, , token]) => [port, otherId, token] as string[]),
    );
    expect(otherSandbox.status).toBe(403);
    expect(json(otherSandbox).code).toBe("PORT_URL_TOKEN_INVALID");
    const otherPort = await open(
      withLabel(plain.url, ([, id, token]) => ["8124", id, token] as string[]),
    );
    expect(otherPort.status).toBe(403);
  });

  it("expire (403) by the server's clock", async () => {
    const short = await t.api(
      "GET",
      `/api/v1/sandboxes/${plain.id}/ports/${APP_PORT}?expires_in_s=60`,
    );
    expect((await open(short.body.url)).status).toBe(200);
    clock += 61_000;
    const late = await open(short.body.url);
    expect(late.status).toBe(403);
    expect(json(late).code).toBe("PORT_URL_EXPIRED");
    expect((await open(plain.url)).status).toBe(200);
  });

  it("answer 502 when nothing listens on the port", async () => {
    expect((await open(plain.url)).status).toBe(200);
    const idle = await t.api("GET", `/api/v1/sandboxes/${plain.id}/ports/${APP_PORT + 1}`);
    const answer = await open(idle.body.url);
    expect(answer.status).toBe(502);
    expect(json(answer).code).toBe("PORT_NOT_LISTENING");
  });

  it("stop working when the key is rotated", async () => {
    const { deps } = t.server.core;
    const key = deps.portUrls.key;
    expect((await open(plain.url)).status).toBe(200);
    deps.portUrls.key = derivePortUrlKey(Buffer.alloc(32, 7), 2);
    try {
      expect((await open(plain.url)).status).toBe(403);
    } finally {
      deps.portUrls.key = key;
    }
  });

  it("answer 409 while PAUSED, and resume a sandbox created with auto_resume", async () => {
    expect((await open(plain.url)).status).toBe(200);
    expect((await t.api("POST", `/api/v1/sandboxes/${plain.id}/pause`)).status).toBe(200);
    const paused = await open(plain.url);
    expect(paused.status).toBe(409);
    expect(json(paused).code).toBe("SANDBOX_NOT_RUNNING");
    expect((await t.api("POST", `/api/v1/sandboxes/${plain.id}/resume`)).body.status).toBe(
      "RUNNING",
    );
    expect((await open(plain.url)).status).toBe(200);

    expect((await open(resumable.url)).status).toBe(200);
    expect((await t.api("POST", `/api/v1/sandboxes/${resumable.id}/pause`)).status).toBe(200);
    const woken = await open(`${resumable.url}after-pause`);
    expect(woken.status).toBe(200);
    expect(json(woken).path).toBe("/after-pause");
    expect((await t.api("GET", `/api/v1/sandboxes/${resumable.id}`)).body.status).toBe("RUNNING");
  });

  it("answer 404 once the sandbox is deleted", async () => {
    expect((await open(plain.url)).status).toBe(200);
    expect((await t.api("DELETE", `/api/v1/sandboxes/${plain.id}`)).status).toBe(200);
    const gone = await open(plain.url);
    expect(gone.status).toBe(404);
    expect(json(gone).code).toBe("SANDBOX_NOT_FOUND");
    // A URL's token is a bearer secret: never in the server's logs.
    const token = new URL(plain.url).hostname.split(".")[0]?.split("-")[2] ?? "";
    expect(token).toHaveLength(26);
    expect(t.logs()).not.toContain(token);
  });
});
