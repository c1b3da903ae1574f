import { LanHost } from "@sandbox-server/runtime/test/lan-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents, waitForExecution } from "./agent";
import { startTestServer, type TestServer } from "./harness";
import { type Receiver, startReceiver, waitUntil } from "./receiver";

// A sandbox's connection to a refused address reaches /metrics and the owner's webhooks with no
// call that asks the runtime for it: the control plane reads the enforcer's counters of the
// sandboxes that had activity. Real namespaces (or containers), a real LAN host beside the host.
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const lan = new LanHost();
let t: TestServer;
let alice: string;
let receiver: Receiver;

beforeAll(async () => {
  await lan.start();
  receiver = await startReceiver();
  const operatorEgress = {
    allow: [{ kind: "cidr" as const, cidr: `${lan.address}/32`, port: null }],
  };
  t = await startTestServer({
    metricsToken: METRICS_TOKEN,
    operatorEgress,
    config: { webhookAllowPrivateNetworks: true, webhookBackoffBaseMs: 40 },
  });
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await lan.stop();
});

/** Runs a raw TCP connect to the LAN host's web server in the sandbox, through its agent. */
async function connectFrom(sandboxId: string): Promise<string> {
  const conv = await t.api("POST", "/api/v1/app-conversations", {
    key: alice,
    body: { sandbox_id: sandboxId },
  });
  expect(conv.status, JSON.stringify(conv.body)).toBe(201);
  // Its output ("probe=open", "probe=ECONNREFUSED") is not in its own text, which events carry too.
  const program = `const say=(r)=>{console.log(["probe",r].join("="));process.exit(0)};const s=require("net").connect(8080,"${lan.address}");s.on("connect",()=>say("open"));s.on("error",(e)=>say(e.code))`;
  const sent = await t.api("POST", `/api/v1/app-conversations/${conv.body.id}/send-message`, {
    key: alice,
    body: { role: "user", content: [{ type: "text", text: `node -e '${program}'` }], run: true },
  });
  expect(sent.status).toBe(200);
  await waitForExecution(conv.body.conversation_url, conv.body.session_api_key);
  const events = JSON.stringify(
    await readEvents(conv.body.conversation_url, conv.body.session_api_key),
  );
  return /probe=([A-Za-z_]+)/.exec(events)?.[1] ?? "no answer";
}

async function deniedCount(sandboxId: string): Promise<number> {
  const res = await fetch(`${t.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const line = (await res.text())
    .split("\n")
    .find((l) =>
      l.startsWith(`sandbox_server_sandbox_egress_denied_total{sandbox_id="${sandboxId}"}`),
    );
  return line ? Number(line.split(" ").at(-1)) : 0;
}

async function createSandbox(network: Record<string, unknown>): Promise<string> {
  const created = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: { network } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await t.waitForStatus(created.body.id, "RUNNING", alice);
  return created.body.id;
}

describe("refused connections to addresses", () => {
  it("reach /metrics and sandbox.egress_denied while the sandbox is active, unasked", async (ctx) => {
    if (t.runtime.network !== "own") ctx.skip();
    const hook = await t.api("POST", "/api/v1/webhooks", {
      key: alice,
      body: { url: `${receiver.url}/denied`, events: ["sandbox.egress_denied"] },
    });
    expect(hook.status).toBe(201);
    const allowed = await createSandbox({ allow_internet: true });
    const refused = await createSandbox({ allow_internet: true, deny_out: [lan.address] });

    // The same connection, allowed (the operator opens the LAN host), then refused by deny_out.
    expect(await connectFrom(allowed)).toBe("open");
    expect(await connectFrom(refused)).toBe("ECONNREFUSED");

    await waitUntil(
      async () => (await deniedCount(refused)) >= 1,
      () => "a denial counted in /metrics",
      30_000,
    );
    await waitUntil(
      () => receiver.delivered().length >= 1,
      () => `${receiver.delivered().length} sandbox.egress_denied deliveries`,
      30_000,
    );
    const [event] = receiver.delivered();
    expect(event?.payload).toMatchObject({
      kind: "sandbox.egress_denied",
      sandbox_id: refused,
      data: {
        sandbox_id: refused,
        destination: `${lan.address}:8080`,
        rule: `deny_out ${lan.address}`,
        denied: 1,
      },
    });
    expect(await deniedCount(allowed)).toBe(0);
  });
});
