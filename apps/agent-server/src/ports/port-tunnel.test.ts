import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PORT_TUNNEL_PROTOCOL } from "@sandbox-server/agent-contracts/port-tunnel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

let agent: TestServer;
let app: http.Server;
let appPort: number;
beforeEach(async () => {
  agent = await startTestServer();
  app = http.createServer((req, res) => res.end(`app saw ${req.method} ${req.url}`));
  appPort = await listen(app);
});
afterEach(async () => {
  app.closeAllConnections();
  app.close();
  await agent.dispose();
});

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

type Opened = { socket: Socket } | { status: number; body: string };

/** Asks the agent server for a tunnel; the socket once upgraded, else the refusal. */
function openTunnel(port: number, key: string | null = SESSION_KEY): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${agent.baseUrl}/api/ports/${port}`, {
      headers: {
        Connection: "Upgrade",
        Upgrade: PORT_TUNNEL_PROTOCOL,
        ...(key ? { "X-Session-API-Key": key } : {}),
      },
    });
    req.on("upgrade", (_res, socket) => resolve({ socket }));
    req.on("response", (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A tunnel to `port` opens (then is closed again). */
async function expectTunnel(port: number): Promise<void> {
  const opened = await openTunnel(port);
  expect(opened).toHaveProperty("socket");
  if ("socket" in opened) opened.socket.destroy();
}

/** One HTTP/1.1 request written raw into the tunnel; the raw answer up to the close. */
function requestThrough(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk;
    });
    socket.on("close", () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: app\r\nConnection: close\r\n\r\n`);
  });
}

describe("port tunnel", () => {
  it("pipes raw bytes to a port inside the sandbox", async () => {
    const opened = await openTunnel(appPort);
    if (!("socket" in opened)) throw new Error(`refused: ${opened.status}`);
    const answer = await requestThrough(opened.socket, "/some/path?q=1");
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain("app saw GET /some/path?q=1");
  });

  it("refuses a missing or wrong session key", async () => {
    await expectTunnel(appPort);
    expect(await openTunnel(appPort, null)).toEqual({
      status: 401,
      body: '{"detail":"Unauthorized"}',
    });
    expect(await openTunnel(appPort, "wrong")).toMatchObject({ status: 401 });
  });

  it("refuses its own port", async () => {
    await expectTunnel(appPort);
    const own = Number(new URL(agent.baseUrl).port);
    expect(await openTunnel(own)).toMatchObject({ status: 403 });
  });

  it("answers 502 when nothing listens on the port", async () => {
    await expectTunnel(appPort);
    await new Promise((resolve) => {
      app.close(resolve);
      app.closeAllConnections();
    });
    const refused = await openTunnel(appPort);
    expect(refused).toMatchObject({ status: 502 });
    expect(JSON.parse((refused as { body: string }).body).detail).toContain(`port ${appPort}`);
  });
});
