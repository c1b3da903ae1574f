import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeHealth, waitForHealth } from "./health";

let server: Server | null = null;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = null;
});

/** A real HTTP server whose /health answers with `status` and `body`, or never when `hang`. */
async function serveHealth(reply: { status: number; body: unknown } | "hang"): Promise<string> {
  server = createServer((request, response) => {
    if (reply === "hang" || request.url !== "/health") return;
    response.writeHead(reply.status, { "content-type": "application/json" });
    response.end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A loopback port with nothing listening on it. */
async function closedPortUrl(): Promise<string> {
  const url = await serveHealth("hang");
  await new Promise((resolve) => server?.close(resolve));
  server = null;
  return url;
}

describe("probeHealth", () => {
  it("is ok for 200 {status: ok}", async () => {
    const url = await serveHealth({ status: 200, body: { status: "ok" } });
    expect(await probeHealth(url, 1000)).toEqual({ ok: true });
  });

  it("accepts a base URL with a trailing slash", async () => {
    const url = await serveHealth({ status: 200, body: { status: "ok" } });
    expect(await probeHealth(`${url}/`, 1000)).toEqual({ ok: true });
  });

  it("is not ok for a 503 or another body", async () => {
    const url = await serveHealth({ status: 503, body: { status: "starting" } });
    expect(await probeHealth(url, 1000)).toEqual({ ok: false, reason: "/health answered 503" });
  });

  it("says that nothing listens", async () => {
    const probe = await probeHealth(await closedPortUrl(), 1000);
    expect(probe).toEqual({ ok: false, reason: expect.stringContaining("ECONNREFUSED") });
  });

  it("gives up on a server that accepts but never answers", async () => {
    const url = await serveHealth("hang");
    expect(await probeHealth(url, 200)).toEqual({
      ok: false,
      reason: "/health did not answer within 200 ms",
    });
  });
});

describe("waitForHealth", () => {
  it("resolves once the server answers", async () => {
    const url = await serveHealth({ status: 200, body: { status: "ok" } });
    await expect(waitForHealth(url, { timeoutMs: 2000 })).resolves.toBeUndefined();
  });

  it("rejects after the timeout with the last reason", async () => {
    const url = await closedPortUrl();
    await expect(waitForHealth(url, { timeoutMs: 300 })).rejects.toThrow(
      /within 300 ms \(.*ECONNREFUSED/,
    );
  });

  it("keeps the real reason when the last probe starts just before the deadline", async () => {
    // /health is slow (30 ms) and answers 503. On a clock of the test's: the second check moves
    // it to 5 ms before the deadline, so that probe starts with almost no budget left. It must
    // still wait for the answer and report the 503, not a timeout of the few milliseconds that
    // were left; the third check moves the clock past the deadline.
    server = createServer((_request, response) => {
      setTimeout(() => response.writeHead(503).end(), 30);
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let clock = 0;
    let calls = 0;
    const giveUpWhen = () => {
      calls += 1;
      if (calls === 2) clock = 495;
      if (calls === 3) clock = 500;
      return null;
    };
    await expect(
      waitForHealth(url, { timeoutMs: 500, giveUpWhen, now: () => clock }),
    ).rejects.toThrow("within 500 ms (/health answered 503)");
    expect(calls).toBe(3);
  });

  it("asks whether to give up at most every giveUpEveryMs, while probing more often", async () => {
    // Each probe moves the test's clock on by 100 ms.
    let clock = 0;
    let probes = 0;
    server = createServer((_request, response) => {
      probes += 1;
      clock += 100;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let asked = 0;
    const giveUpWhen = () => {
      asked += 1;
      return asked === 2 ? "gone" : null;
    };
    const wait = waitForHealth(url, {
      timeoutMs: 60_000,
      intervalMs: 5,
      giveUpWhen,
      giveUpEveryMs: 300,
      now: () => clock,
    });
    await expect(wait).rejects.toThrow("gone");
    // Asked first at once, then once more after 300 ms: three probes in between.
    expect(asked).toBe(2);
    expect(probes).toBe(3);
  });

  it("rejects at once with the reason to give up", async () => {
    const url = await closedPortUrl();
    const wait = waitForHealth(url, { timeoutMs: 60_000, giveUpWhen: () => "process exited" });
    await expect(wait).rejects.toThrow("process exited");
  });
});
