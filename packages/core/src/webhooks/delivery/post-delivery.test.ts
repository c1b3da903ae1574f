import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookDeliveryRow, WebhookRow } from "@sandbox-server/db";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postDelivery } from "./post-delivery";

// A real receiver on 127.0.0.1: /ok answers at once, /trickle sends its headers and then a byte
// of body every 20 ms for ever (no per-read timeout ends that), /hang never answers.
let server: Server;
let base: string;
const dispatcher = new Agent();
const trickles = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/ok") res.writeHead(204).end();
      if (req.url === "/trickle") {
        res.writeHead(200);
        trickles.add(setInterval(() => res.write("."), 20));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await dispatcher.close();
});

const hook = (path: string) => ({ url: `${base}${path}`, secret: "whsec_test" }) as WebhookRow;
const row = { id: "dlv_1", payload: '{"event_id":"ev_1"}' } as WebhookDeliveryRow;

describe("one delivery attempt", () => {
  it("ends at its timeout, also while a body keeps coming, and leaves nothing on the stop signal", async () => {
    const stopping = new AbortController();
    const options = { dispatcher, timeoutMs: 300, stopping: stopping.signal, now: Date.now() };
    // A loaded machine may take longer than the short timeout for any answer.
    const patient = { ...options, timeoutMs: 30_000 };
    expect(await postDelivery(hook("/ok"), row, patient)).toEqual({
      kind: "answered",
      statusCode: 204,
    });
    expect(await postDelivery(hook("/hang"), row, options)).toEqual({
      kind: "failed",
      category: "timeout",
    });
    // Answered (the status came); the body is not waited for past the timeout.
    expect(await postDelivery(hook("/trickle"), row, options)).toEqual({
      kind: "answered",
      statusCode: 200,
    });
    // The worker's signal lives as long as the worker: each attempt takes its listener away.
    expect(getEventListeners(stopping.signal, "abort")).toHaveLength(0);
  });

  it("is interrupted, not failed, when the worker stops meanwhile", async () => {
    const stopping = new AbortController();
    const options = { dispatcher, timeoutMs: 60_000, stopping: stopping.signal, now: Date.now() };
    const attempt = postDelivery(hook("/hang"), row, options);
    await new Promise((resolve) => server.once("request", resolve));
    stopping.abort();
    expect(await attempt).toEqual({ kind: "interrupted" });
    expect(await postDelivery(hook("/ok"), row, options)).toEqual({ kind: "interrupted" });
  });
});
