import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/server";
import { ADMIN_KEY, createRuntime } from "./harness";

/**
 * Slow clients over real sockets: a request without valid credentials is answered 401 on its
 * headers, before its body, and its connection closed; a body that stops arriving is cut with 408.
 * Node's own request timeout is far off here, so only these bounds can answer.
 */
const BODY_IDLE_MS = 300;
const LINGER_MS = 200;
/** Between two bytes of a dripping body: well inside the idle bound. */
const DRIP_MS = 50;

let server: RunningServer;
let runtime: SandboxRuntime;
let dataDir: string;
let port: number;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-server-slow-"));
  runtime = await createRuntime("process", dataDir);
  server = await startServer({
    dataDir,
    runtime,
    log: pino({ level: "silent" }),
    adminApiKey: ADMIN_KEY,
    httpTimeouts: {
      requestTimeoutMs: 600_000,
      headersTimeoutMs: 60_000,
      bodyIdleTimeoutMs: BODY_IDLE_MS,
      refusedBodyLingerMs: LINGER_MS,
    },
  });
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Exchange {
  /** The status line's code, once the response head arrived. */
  status: Promise<number>;
  /** The whole response, once the server closed the connection. */
  closed: Promise<string>;
  /** Whether the client had sent its whole body when the connection closed. */
  bodySent: () => boolean;
  socket: Socket;
}

/**
 * Sends `head`, then `body` one byte every DRIP_MS (or its first `stallAfter` bytes, then
 * nothing); stops writing once the server closes the connection.
 */
function drip(head: string, body: string, stallAfter = body.length): Exchange {
  let text = "";
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  let onStatus: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => {
    onStatus = resolve;
  });
  const socket = connect(port, "127.0.0.1", () => {
    socket.write(head);
    timer = setInterval(() => {
      if (sent >= stallAfter || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      socket.write(body[sent] ?? "");
      sent++;
    }, DRIP_MS);
  });
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (match) onStatus(Number(match[1]));
  });
  const closed = new Promise<string>((resolve) => {
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(timer);
      resolve(text);
    });
  });
  return { status, closed, bodySent: () => sent >= body.length, socket };
}

let users = 0;
/** A user create (201 for the admin): a body of its own each time, as names are unique. */
function userCreate(auth: string): { head: string; body: string } {
  const body = JSON.stringify({ name: `slow-client-${users++}-${"x".repeat(40)}` });
  return {
    head: `POST /api/v1/users HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
  };
}
const ADMIN_AUTH = `Authorization: Bearer ${ADMIN_KEY}\r\n`;

/** The same create over tRPC (`POST /trpc/users.create`, the input as the body). */
function trpcUserCreate(auth: string): { head: string; body: string } {
  const rest = userCreate(auth);
  return { ...rest, head: rest.head.replace("POST /api/v1/users ", "POST /trpc/users.create ") };
}
const dripCreate = (auth: string, stallAfter?: number) => {
  const { head, body } = userCreate(auth);
  return drip(head, body, stallAfter);
};

describe("a request without valid credentials", () => {
  it("is answered 401 on its headers and cut off while its body still drips", async () => {
    // The same drip with a valid key is read to its end and answered.
    const valid = dripCreate(ADMIN_AUTH);
    for (const auth of ["", "Authorization: Bearer ssk_not_a_key_0123456789\r\n"]) {
      const exchange = dripCreate(auth);
      expect(await exchange.status).toBe(401);
      const response = await exchange.closed;
      expect(response).toMatch(/connection: close/i);
      expect(response).toMatch(/"code":"UNAUTHORIZED"/);
      // Closed long before a body of this length could have dripped in.
      expect(exchange.bodySent()).toBe(false);
    }
    expect(await valid.status).toBe(201);
    expect(valid.bodySent()).toBe(true);
    valid.socket.destroy();
  });

  it("sent whole at once, still reads its 401 (no reset)", async () => {
    const { head, body } = userCreate("");
    const exchange = drip(`${head}${body}`, "");
    expect(await exchange.status).toBe(401);
    expect(await exchange.closed).toMatch(/"code":"UNAUTHORIZED"/);
  });

  it("over tRPC too: 401 in tRPC's shape on the headers, while the body still drips", async () => {
    const valid = trpcUserCreate(ADMIN_AUTH);
    const accepted = drip(valid.head, valid.body);
    const stranger = trpcUserCreate("");
    const exchange = drip(stranger.head, stranger.body);
    expect(await exchange.status).toBe(401);
    const response = await exchange.closed;
    expect(response).toMatch(/"httpStatus":401/);
    expect(response).toMatch(/connection: close/i);
    expect(exchange.bodySent()).toBe(false);
    expect(await accepted.status).toBe(200);
    expect(accepted.bodySent()).toBe(true);
    accepted.socket.destroy();
  });
});

describe("a body that stops arriving", () => {
  it("is cut with 408 once no byte came for the idle bound; a slow but steady one is not", async () => {
    const steady = dripCreate(ADMIN_AUTH);
    const stalled = dripCreate(ADMIN_AUTH, 5);
    expect(await stalled.status).toBe(408);
    const response = await stalled.closed;
    expect(response).toMatch(/"code":"REQUEST_TIMEOUT"/);
    expect(response).toMatch(/connection: close/i);
    // The steady body takes far longer than the idle bound in all, and is answered normally.
    expect(await steady.status).toBe(201);
    expect(steady.bodySent()).toBe(true);
    steady.socket.destroy();
  });
});
