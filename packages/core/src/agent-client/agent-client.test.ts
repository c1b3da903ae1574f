import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { AgentServerClient } from "./agent-client";

/** A real HTTP server on an ephemeral port, answering by path; it records what it received. */
let server: Server;
let base: string;
const received: {
  method?: string;
  url?: string;
  headers: IncomingMessage["headers"];
  body: string;
}[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (req.url === "/stuck") return; // never answers
      const status = Number(req.url?.slice(1).split("?")[0]) || 200;
      const body = status === 200 ? '{"ok":true,"n":[1,2]}' : `{"detail":"status ${status}"}`;
      res.writeHead(status, { "content-type": "application/json" });
      // In two writes: the client must gather every chunk of the answer.
      res.write(body.slice(0, 5));
      res.end(body.slice(5));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("AgentServerClient", () => {
  const client = new AgentServerClient({ requestTimeoutMs: 2_000, connectTimeoutMs: 1_000 });
  afterAll(() => client.close());

  it("sends the body byte for byte with the session key, and parses the JSON answer", async () => {
    const body = '{"role":"user","content":[{"type":"text","text":"hé"}],  "run":false}';
    const answer = await client.request(base, "key-1", { method: "POST", path: "/200", body });
    expect(answer).toEqual({ status: 200, body: { ok: true, n: [1, 2] } });
    const seen = received.at(-1);
    expect(seen?.body).toBe(body);
    expect(seen?.headers["x-session-api-key"]).toBe("key-1");
    expect(seen?.headers["content-type"]).toBe("application/json");

    const get = await client.request(base, "key-1", { method: "GET", path: "/200" });
    expect(get.status).toBe(200);
    expect(received.at(-1)?.headers["content-type"]).toBeUndefined();
  });

  it("returns a 4xx answer, and turns a 5xx into SANDBOX_UNAVAILABLE", async () => {
    const missing = await client.request(base, "k", { method: "GET", path: "/404" });
    expect(missing).toEqual({ status: 404, body: { detail: "status 404" } });
    const broken = await failure(client.request(base, "k", { method: "GET", path: "/503" }));
    expect(broken.code).toBe("SANDBOX_UNAVAILABLE");
    expect(broken.message).toBe("The agent server answered 503");
  });

  it("says when the agent server refused the connection (the request never left)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(
      client.request(`http://127.0.0.1:${port}`, "k", { method: "POST", path: "/x", body: "{}" }),
    );
    expect(refused.code).toBe("SANDBOX_UNAVAILABLE");
    expect(refused.message).toBe("The agent server refused the connection");
    expect((refused.cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("gives up on an agent server that takes the request and never answers", async () => {
    const stuck = await failure(
      client.request(base, "k", { method: "POST", path: "/stuck", body: "{}", timeoutMs: 300 }),
    );
    expect(stuck.code).toBe("SANDBOX_UNAVAILABLE");
    expect(stuck.message).toBe("The agent server did not answer within 300 ms");
    // The same pool still serves the next request.
    expect((await client.request(base, "k", { method: "GET", path: "/200" })).status).toBe(200);
  });
});
