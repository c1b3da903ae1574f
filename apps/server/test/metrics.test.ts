import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForExecution } from "./agent";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";
import { type Receiver, startReceiver, waitUntil } from "./receiver";

const METRICS_TOKEN = "metrics-token-0123456789abcdef";

let t: TestServer;
let alice: string;
let receiver: Receiver;
const sandboxes: string[] = [];

beforeAll(async () => {
  t = await startTestServer({
    metricsToken: METRICS_TOKEN,
    config: { webhookAllowPrivateNetworks: true, webhookBackoffBaseMs: 40 },
  });
  alice = await t.createUser("alice");
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const id of sandboxes) await t.api("DELETE", `/api/v1/sandboxes/${id}`, { key: alice });
  await t.close();
  await receiver.close();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The exposition text as samples (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (key !== undefined && value !== undefined) labels[key] = value;
    }
    samples.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels` (undefined when none). */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).toBeLessThanOrEqual(1);
  return found[0]?.value;
}

async function scrape(authorization: string | null) {
  const res = await fetch(`${t.url}/metrics`, {
    headers: authorization ? { authorization } : {},
  });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

const REQUESTS = "sandbox_server_http_request_duration_seconds_count";

describe("GET /metrics", () => {
  it("needs the metrics token or an admin key: 401 without, 403 for a normal user", async () => {
    expect((await scrape(null)).status).toBe(401);
    const wrong = await scrape("Bearer not-the-token-0123456789");
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).code).toBe("UNAUTHORIZED");
    const user = await scrape(`Bearer ${alice}`);
    expect(user.status).toBe(403);
    expect(JSON.parse(user.text).code).toBe("FORBIDDEN");
    const byToken = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(byToken.status).toBe(200);
    expect(byToken.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(byToken.text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect((await scrape(`Bearer ${ADMIN_KEY}`)).status).toBe(200);
  });

  it("counts requests by route pattern and status, sandboxes, forwards, deliveries and event lag", async () => {
    const hook = await t.api("POST", "/api/v1/webhooks", {
      key: alice,
      body: { url: receiver.url, events: ["MessageEvent"] },
    });
    expect(hook.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/health`)).status).toBe(200);
    const missing = await t.api("GET", "/api/v1/sandboxes/sb_doesnotexist", { key: alice });
    expect(missing.status).toBe(404);
    const viaTrpc = await t.trpc("query", "webhooks.list", {}, alice);
    expect(viaTrpc.status).toBe(200);

    const conv = await t.api("POST", "/api/v1/app-conversations", { key: alice, body: {} });
    expect(conv.status, JSON.stringify(conv.body)).toBe(201);
    sandboxes.push(conv.body.sandbox_id);
    const send = (text: string) =>
      t.api("POST", `/api/v1/app-conversations/${conv.body.id}/send-message`, {
        key: alice,
        body: { role: "user", content: [{ type: "text", text }], run: true },
      });
    expect((await send("echo metered")).status).toBe(200);
    await waitForExecution(conv.body.conversation_url, conv.body.session_api_key);
    // The user's message and the agent's answer are delivered.
    await waitUntil(
      () => receiver.delivered().length >= 2,
      () => `${receiver.delivered().length} deliveries`,
    );
    const pause = `/api/v1/sandboxes/${conv.body.sandbox_id}/pause`;
    expect((await t.api("POST", pause, { key: alice })).status).toBe(200);
    expect((await send("echo refused")).status).toBe(409);

    const { status, text } = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(status).toBe(200);
    const samples = parse(text);
    const requests = (method: string, route: string, code: number) =>
      sampleValue(samples, REQUESTS, { method, route, status: String(code) });
    expect(requests("GET", "/health", 200)).toBe(3);
    expect(requests("GET", "/api/v1/sandboxes/{id}", 404)).toBe(1);
    expect(requests("GET", "trpc:webhooks.list", 200)).toBe(1);
    expect(requests("POST", "/api/v1/app-conversations", 201)).toBe(1);
    const sendRoute = "/api/v1/app-conversations/{conversation_id}/send-message";
    expect(requests("POST", sendRoute, 200)).toBe(1);
    expect(requests("POST", sendRoute, 409)).toBe(1);
    expect(requests("POST", "/api/v1/sandboxes/{id}/pause", 200)).toBe(1);
    // Route patterns only: no series names a sandbox or conversation.
    expect(text).not.toContain(conv.body.sandbox_id);
    expect(text).not.toContain(conv.body.id);
    expect(text).not.toContain("sb_doesnotexist");

    const runtime = t.runtime.kind;
    expect(sampleValue(samples, "sandbox_server_sandboxes", { status: "PAUSED", runtime })).toBe(1);
    expect(sampleValue(samples, "sandbox_server_sandboxes", { status: "RUNNING", runtime })).toBe(
      0,
    );
    const forwards = "sandbox_server_send_message_total";
    expect(sampleValue(samples, forwards, { outcome: "delivered" })).toBe(1);
    expect(sampleValue(samples, forwards, { outcome: "refused_not_running" })).toBe(1);
    const attempts = "sandbox_server_webhook_delivery_attempts_total";
    expect(sampleValue(samples, attempts, { outcome: "succeeded" })).toBeGreaterThanOrEqual(2);
    expect(sampleValue(samples, "sandbox_server_webhook_queue_depth")).toBeGreaterThanOrEqual(0);
    expect(
      sampleValue(samples, "sandbox_server_event_follower_lag_seconds_count"),
    ).toBeGreaterThanOrEqual(2);
  });
});
