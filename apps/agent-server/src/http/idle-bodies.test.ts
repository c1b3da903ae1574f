import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";
import { connectRaw, parseResponse, type RawConnection } from "../../test/raw-http";

// Node's request timeout is far off: only the body idle bound and the early 401 can answer here.
// Nothing asserts on timing: a drip's pace only has to sit well inside the idle bound.
const limits = { requestTimeoutMs: 600_000, headersTimeoutMs: 60_000, bodyIdleTimeoutMs: 300 };
const DRIP_MS = 50;

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer({ limits });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(() => server.dispose());

const body = JSON.stringify({ agent: { kind: "shell" }, title: "x".repeat(40) });
const head = (key: string | null) =>
  "POST /api/conversations HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
  (key === null ? "" : `X-Session-API-Key: ${key}\r\n`) +
  `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;

/** Writes the head, then the body one byte every DRIP_MS up to `upTo` bytes; how many it sent. */
function drip(connection: RawConnection, upTo = body.length): () => number {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= upTo || connection.socket.destroyed) {
      clearInterval(timer);
      return;
    }
    connection.write(body[sent] ?? "");
    sent++;
  }, DRIP_MS);
  connection.socket.once("close", () => clearInterval(timer));
  return () => sent;
}

describe("slow bodies", () => {
  it("a steady drip is read to its end; a body that stops is answered 408 and closed", async () => {
    const steady = await connectRaw(port);
    steady.write(head(SESSION_KEY));
    const steadySent = drip(steady);
    const stalled = await connectRaw(port);
    stalled.write(head(SESSION_KEY));
    drip(stalled, 5);

    const cut = parseResponse(await stalled.closed);
    expect(cut.status).toBe(408);
    expect(cut.head).toMatch(/connection: close/i);
    const answered = parseResponse(await steady.closed);
    expect(answered.status).toBe(201);
    expect(steadySent()).toBe(body.length);
  });

  it("without a valid session key: 401 on the headers, the connection closed while the body drips", async () => {
    for (const key of [null, "not-the-key"]) {
      const stranger = await connectRaw(port);
      stranger.write(head(key));
      const sent = drip(stranger);
      await expect.poll(() => stranger.received()).toMatch(/^HTTP\/1\.1 401/);
      // Answered before its body: far fewer bytes sent than the body has.
      expect(sent()).toBeLessThan(body.length);
      await stranger.closed;
      expect(sent()).toBeLessThan(body.length);
    }
  });
});
