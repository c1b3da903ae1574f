import { lookup } from "node:dns/promises";
import type { CoreConfig } from "@sandbox-server/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";
import { type Receiver, startReceiver, waitUntil } from "./receiver";

/**
 * Test DNS: names under `.test` resolve as `names` says (and fail otherwise); every other name
 * as the system resolves it. Each question is recorded in `asked`.
 */
const names = new Map<string, string[]>();
const asked: string[] = [];
async function resolveHost(host: string): Promise<string[]> {
  asked.push(host);
  const known = names.get(host);
  if (known) return known;
  if (host.endsWith(".test")) {
    throw Object.assign(new Error(`${host} does not resolve`), { code: "ENOTFOUND" });
  }
  return (await lookup(host, { all: true })).map((entry) => entry.address);
}

/** A public address no test ever connects to: names point here while they are registered. */
const PUBLIC = "93.184.215.14";

const base: Partial<CoreConfig> = {
  webhookTimeoutMs: 1_000,
  webhookMaxAttempts: 3,
  webhookBackoffBaseMs: 40,
  webhookBackoffMaxMs: 200,
  webhookResolveHost: resolveHost,
};

interface Side {
  t: TestServer;
  alice: string;
  sandboxId: string;
}

let open: Side;
let strict: Side;
const receivers: Receiver[] = [];

async function side(allowPrivate: boolean): Promise<Side> {
  const t = await startTestServer({
    config: { ...base, webhookAllowPrivateNetworks: allowPrivate },
  });
  const alice = await t.createUser("alice");
  const created = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await t.waitForStatus(created.body.id, "RUNNING", alice);
  return { t, alice, sandboxId: created.body.id };
}

beforeAll(async () => {
  open = await side(true);
  strict = await side(false);
});
afterAll(async () => {
  await open?.t.close();
  await strict?.t.close();
  for (const r of receivers) await r.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

function register(s: Side, url: string) {
  return s.t.api("POST", "/api/v1/webhooks", {
    key: s.alice,
    body: { url, events: ["sandbox.status_changed"] },
  });
}

async function registered(s: Side, url: string): Promise<string> {
  const res = await register(s, url);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body.id;
}

/** Pauses and resumes the side's sandbox: status_changed events for alice's webhooks. */
async function bounce(s: Side): Promise<void> {
  const paused = await s.t.api("POST", `/api/v1/sandboxes/${s.sandboxId}/pause`, { key: s.alice });
  expect(paused.status).toBe(200);
  const resumed = await s.t.api("POST", `/api/v1/sandboxes/${s.sandboxId}/resume`, {
    key: s.alice,
  });
  expect(resumed.status).toBe(200);
  await s.t.waitForStatus(s.sandboxId, "RUNNING", s.alice);
}

/** The webhook's newest delivery once it has been attempted. */
async function firstAttempt(s: Side, hookId: string) {
  return waitUntil(
    async () => {
      const res = await s.t.api("GET", `/api/v1/webhooks/${hookId}/deliveries`, { key: s.alice });
      return res.body.items.find((d: { attempts: number }) => d.attempts > 0);
    },
    () => `no attempt for webhook ${hookId}`,
  );
}

async function remove(s: Side, hookId: string) {
  await s.t.api("DELETE", `/api/v1/webhooks/${hookId}`, { key: s.alice });
}

function portOf(url: string): string {
  return new URL(url).port;
}

describe("registering a destination", () => {
  it("refuses every class of non-public address unless private networks are allowed", async () => {
    const r = await receiver();
    const port = portOf(r.url);
    names.set("public.test", [PUBLIC]);
    names.set("loopback.test", ["127.0.0.1"]);
    names.set("mixed.test", [PUBLIC, "10.0.0.7"]);

    // The probe succeeds where it should: public destinations, by address and by name.
    for (const url of [
      `http://${PUBLIC}/hook`,
      "http://public.test/hook",
      "https://[2606:4700::1]/",
    ]) {
      await remove(strict, await registered(strict, url));
    }

    const refused: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${port}/hook`, /loopback/],
      [`http://localhost:${port}/hook`, /loopback/],
      ["http://[::1]/hook", /loopback/],
      ["http://2130706433/hook", /loopback/],
      ["http://0x7f.0.0.1/hook", /loopback/],
      ["http://loopback.test/hook", /loopback/],
      ["http://10.1.2.3/hook", /private/],
      ["http://172.16.5.4/hook", /private/],
      ["http://172.31.255.254/hook", /private/],
      ["http://192.168.1.1/hook", /private/],
      ["http://[fc00::1]/hook", /private/],
      ["http://[fd12:3456::1]/hook", /private/],
      ["http://mixed.test/hook", /private/],
      ["http://169.254.1.1/hook", /link-local/],
      ["http://[fe80::1]/hook", /link-local/],
      ["http://100.64.0.1/hook", /carrier-grade NAT/],
      ["http://100.127.255.254/hook", /carrier-grade NAT/],
      ["http://224.0.0.1/hook", /multicast/],
      ["http://[ff02::1]/hook", /multicast/],
      ["http://0.0.0.0/hook", /unspecified/],
      ["http://[::]/hook", /unspecified/],
      ["http://255.255.255.255/hook", /broadcast/],
      ["http://[::ffff:127.0.0.1]/hook", /loopback/],
      ["http://[::ffff:10.0.0.1]/hook", /private/],
      ["http://[::ffff:169.254.169.254]/hook", /metadata/],
      ["http://[64:ff9b::7f00:1]/hook", /loopback/],
      ["http://169.254.169.254/latest/meta-data/", /metadata/],
      ["http://[fd00:ec2::254]/latest/meta-data/", /metadata/],
      ["http://metadata.google.internal/computeMetadata/v1/", /metadata/],
    ];
    for (const [url, reason] of refused) {
      const res = await register(strict, url);
      expect(res.status, url).toBe(422);
      expect(res.body.code, url).toBe("VALIDATION_FAILED");
      expect(res.body.message, url).toMatch(reason);
      expect(res.body.issues, url).toEqual([
        expect.objectContaining({ path: ["url"], code: "destination_refused" }),
      ]);
      // The answer names the class, never the address a name resolved to.
      expect(JSON.stringify(res.body), url).not.toContain("10.0.0.7");
    }
    expect(
      (await strict.t.api("GET", "/api/v1/webhooks", { key: strict.alice })).body.items,
    ).toEqual([]);
  });

  it("allows private networks when asked, but never the control plane, an agent server or metadata", async () => {
    const r = await receiver();
    // The probe succeeds where it should: a loopback receiver registers and receives.
    const allowed = await registered(open, r.url);
    await bounce(open);
    await waitUntil(
      () => r.delivered().length > 0,
      () => "the loopback receiver got nothing",
    );
    await remove(open, allowed);

    const controlPlane = portOf(open.t.url);
    const sandbox = await open.t.api("GET", `/api/v1/sandboxes/${open.sandboxId}`, {
      key: open.alice,
    });
    const agentServer = new URL(sandbox.body.agent_server_url as string);
    // An agent server on the host's loopback (Docker, pasta) is refused as an agent server; one at
    // its namespace's veth address is in reserved space, which is never a destination.
    const onLoopback = agentServer.hostname === "127.0.0.1";
    const refused: Array<[string, RegExp]> = [
      [`${open.t.url}/api/v1/webhooks`, /control plane/],
      [`http://localhost:${controlPlane}/`, /control plane/],
      [`http://[::ffff:127.0.0.1]:${controlPlane}/`, /control plane/],
      [`http://127.0.0.2:${controlPlane}/`, /control plane/],
      [`${agentServer.origin}/api/conversations`, onLoopback ? /agent server/ : /reserved address/],
      ...(onLoopback
        ? ([[`http://localhost:${agentServer.port}/`, /agent server/]] as Array<[string, RegExp]>)
        : []),
      ["http://169.254.169.254/latest/meta-data/", /metadata/],
      ["http://[fd00:ec2::254]/", /metadata/],
      ["http://metadata.google.internal/", /metadata/],
      ["http://0.0.0.0/hook", /unspecified/],
      ["http://169.254.1.1/hook", /link-local/],
    ];
    for (const [url, reason] of refused) {
      const res = await register(open, url);
      expect(res.status, url).toBe(422);
      expect(res.body.message, url).toMatch(reason);
    }
  });
});

describe("connecting to a destination", () => {
  it("re-checks the address at connect time: a name that now resolves to loopback is refused", async () => {
    const r = await receiver();
    const port = portOf(r.url);
    // The probe succeeds where it should: where loopback is allowed, the name reaches the receiver.
    names.set("rebind-ok.test", ["127.0.0.1"]);
    const ok = await registered(open, `http://rebind-ok.test:${port}/hook`);
    await bounce(open);
    await waitUntil(
      () => r.delivered().length > 0,
      () => "the receiver got nothing through rebind-ok.test",
    );
    await remove(open, ok);
    const reached = r.received.length;

    names.set("rebind.test", [PUBLIC]);
    const hook = await registered(strict, `http://rebind.test:${port}/hook`);
    names.set("rebind.test", ["127.0.0.1"]);
    const before = asked.filter((h) => h === "rebind.test").length;
    await bounce(strict);
    const attempt = await firstAttempt(strict, hook);
    expect(attempt).toMatchObject({ last_error: "destination_refused", last_status_code: null });
    expect(asked.filter((h) => h === "rebind.test").length).toBeGreaterThan(before);
    expect(r.received.length).toBe(reached);
    await remove(strict, hook);
  });

  it("with private networks allowed, still refuses the control plane and agent servers at connect time", async () => {
    const sandbox = await open.t.api("GET", `/api/v1/sandboxes/${open.sandboxId}`, {
      key: open.alice,
    });
    const agentServer = new URL(sandbox.body.agent_server_url as string);
    // Each name is registered while it resolves to a public address, then points at the target.
    const targets: Record<string, { address: string; port: string }> = {
      "cp.test": { address: "127.0.0.1", port: portOf(open.t.url) },
      "agent.test": { address: agentServer.hostname, port: agentServer.port },
    };
    const hooks: string[] = [];
    for (const [name, { address, port }] of Object.entries(targets)) {
      names.set(name, [PUBLIC]);
      hooks.push(await registered(open, `http://${name}:${port}/hook`));
      names.set(name, [address]);
    }
    await bounce(open);
    for (const hook of hooks) {
      expect(await firstAttempt(open, hook)).toMatchObject({
        last_error: "destination_refused",
        last_status_code: null,
      });
      await remove(open, hook);
    }
  });
});
