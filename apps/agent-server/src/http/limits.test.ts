import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";
import { connectRaw, parseResponse } from "../../test/raw-http";
import { createLogger } from "../logger";

// Small limits so the tests run fast; nothing below asserts on timing, only on what happens.
const limits = {
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  keepAliveTimeoutMs: 300,
  jsonBodyLimitBytes: 1024,
};

let server: TestServer;
let port: number;
const logLines: string[] = [];
beforeAll(async () => {
  const logger = createLogger("debug", {}, (line) => logLines.push(line));
  server = await startTestServer({ limits, logger });
  port = Number(new URL(server.baseUrl).port);
});
afterAll(() => server.dispose());

const errorLogs = () => logLines.filter((line) => JSON.parse(line).level === "error");
const request = (path: string, headers = "") =>
  `GET ${path} HTTP/1.1\r\nHost: test\r\nX-Session-API-Key: ${SESSION_KEY}\r\n${headers}`;

describe("slow and silent clients", () => {
  it("answers a complete request on a raw connection (the probe the cases below cut short)", async () => {
    const connection = await connectRaw(port);
    connection.write(`${request("/health")}Connection: close\r\n\r\n`);
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
  });

  it("closes a connection whose headers never finish, with a JSON 408", async () => {
    const connection = await connectRaw(port);
    connection.write(request("/health")); // no blank line: the headers never end
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it("closes a connection that sends nothing at all", async () => {
    const connection = await connectRaw(port);
    await connection.closed;
    expect(connection.socket.destroyed).toBe(true);
  });

  it("closes a connection whose body never finishes, with a JSON 408", async () => {
    const connection = await connectRaw(port);
    connection.write(
      "POST /api/conversations HTTP/1.1\r\nHost: test\r\n" +
        `X-Session-API-Key: ${SESSION_KEY}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 100\r\n\r\n{"agent":',
    );
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(408);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it("closes an idle keep-alive connection after its response", async () => {
    const connection = await connectRaw(port);
    connection.write(`${request("/health")}\r\n`);
    const raw = await connection.closed;
    expect(parseResponse(raw).status).toBe(200);
    expect(raw.toLowerCase()).toContain("keep-alive");
  });
});

describe("request framing", () => {
  it("answers a malformed chunk size with a JSON 400, then closes", async () => {
    const connection = await connectRaw(port);
    connection.write(
      "POST /api/conversations HTTP/1.1\r\nHost: test\r\n" +
        `X-Session-API-Key: ${SESSION_KEY}\r\nContent-Type: application/json\r\n` +
        "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    );
    const response = parseResponse(await connection.closed);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: "Malformed HTTP request" });
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  });

  it("accepts a well-formed chunked body (the probe for the case above)", async () => {
    const connection = await connectRaw(port);
    const body = JSON.stringify({ agent: { kind: "shell" } });
    connection.write(
      "POST /api/conversations HTTP/1.1\r\nHost: test\r\nConnection: close\r\n" +
        `X-Session-API-Key: ${SESSION_KEY}\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(parseResponse(await connection.closed).status).toBe(201);
  });

  it("answers any Content-Encoding but identity with 415 and logs no error", async () => {
    const body = gzipSync(JSON.stringify({ agent: { kind: "shell" } }));
    const headers = { "content-type": "application/json", "content-encoding": "gzip" };
    const posted = await server.api("POST", "/api/conversations", body.toString("latin1"), headers);
    expect(posted.status).toBe(415);
    expect(posted.body).toEqual({ detail: expect.stringContaining("Content-Encoding") });
    const probe = await fetch(`${server.baseUrl}/health`, {
      headers: { "content-encoding": "br" },
    });
    expect(probe.status).toBe(415);
    const identity = await server.api(
      "POST",
      "/api/conversations",
      { agent: { kind: "shell" } },
      { "content-encoding": "identity" },
    );
    expect(identity.status).toBe(201);
    expect(errorLogs()).toEqual([]);
  });

  it("answers a malformed percent-escape in the path with 400", async () => {
    const response = await server.api("GET", "/api/conversations/%E0%A4%A");
    expect(response).toEqual({ status: 400, body: { detail: expect.any(String) } });
  });
});

describe("JSON body limit", () => {
  const create = (tags: Record<string, string>, headers?: Record<string, string>) =>
    server.api("POST", "/api/conversations", { agent: { kind: "shell" }, tags }, headers);

  it("accepts a body under the limit and answers 413 over it", async () => {
    expect((await create({ small: "x".repeat(100) })).status).toBe(201);
    const large = await create({ large: "x".repeat(2000) });
    expect(large).toEqual({ status: 413, body: { detail: expect.stringContaining("1024") } });
  });

  it("answers 413 for a chunked body that grows past the limit", async () => {
    const chunks = [JSON.stringify({ agent: { kind: "shell" }, tags: { a: "x".repeat(600) } })];
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of [...chunks, ...chunks])
          controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const response = await fetch(`${server.baseUrl}/api/conversations`, {
      method: "POST",
      headers: { "x-session-api-key": SESSION_KEY, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
  });

  it("answers a charset other than UTF-8 with 415", async () => {
    const response = await server.api(
      "POST",
      "/api/conversations",
      { agent: { kind: "shell" } },
      { "content-type": "application/json; charset=latin1" },
    );
    expect(response.status).toBe(415);
    expect(errorLogs()).toEqual([]);
  });
});
