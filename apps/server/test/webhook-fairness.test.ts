import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";
import { type Received, type Receiver, startReceiver, waitUntil } from "./receiver";

let t: TestServer;
const receivers: Receiver[] = [];

beforeAll(async () => {
  t = await startTestServer({
    config: {
      // Few slots, and a receiver that holds a request keeps its slot for the whole test.
      webhookConcurrency: 4,
      webhookConcurrencyPerUser: 2,
      webhookTimeoutMs: 120_000,
      webhookAllowPrivateNetworks: true,
    },
  });
});
afterAll(async () => {
  await t.close();
  for (const r of receivers) await r.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

async function startSandbox(key: string): Promise<string> {
  const created = await t.api("POST", "/api/v1/sandboxes", { key, body: {} });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await t.waitForStatus(created.body.id, "RUNNING", key);
  return created.body.id;
}

describe("fair delivery", () => {
  it("a user whose receivers hold every request does not delay another user's delivery", async () => {
    const a = await t.createUser("slow-a");
    const b = await t.createUser("quick-b");

    // User A: six webhooks on a receiver that never answers — a backlog of six deliveries.
    const held = await receiver(() => "hang");
    const hooksOfA: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.api("POST", "/api/v1/webhooks", {
        key: a,
        body: { url: `${held.url}/${i}`, events: ["sandbox.status_changed"] },
      });
      expect(res.status).toBe(201);
      hooksOfA.push(res.body.id);
    }
    await startSandbox(a);
    // A holds its share of the slots (2 of 4) and the rest of its backlog waits.
    await waitUntil(
      () => held.received.length >= 2,
      () => `the held receiver got ${held.received.length} requests`,
    );

    // User B: when its delivery arrives, what is A's receiver holding?
    let seenByB: Array<Pick<Received, "answered" | "abandoned">> | null = null;
    const quick = await receiver(() => {
      seenByB ??= held.received.map(({ answered, abandoned }) => ({ answered, abandoned }));
      return 200;
    });
    const hookOfB = await t.api("POST", "/api/v1/webhooks", {
      key: b,
      body: { url: quick.url, events: ["sandbox.status_changed"] },
    });
    expect(hookOfB.status).toBe(201);
    const sandboxOfB = await startSandbox(b);
    await waitUntil(
      () => quick.delivered().some((x) => x.payload.sandbox_id === sandboxOfB),
      () => "B's delivery did not arrive",
    );

    // B's delivery arrived while both of A's requests were still held open, unanswered…
    expect(seenByB).toEqual([
      { answered: null, abandoned: false },
      { answered: null, abandoned: false },
    ]);
    // …and A never had more than its share in flight, with its backlog still pending.
    expect(held.received).toHaveLength(2);
    let pendingOfA = 0;
    for (const id of hooksOfA) {
      const res = await t.api("GET", `/api/v1/webhooks/${id}/deliveries?status=pending`, {
        key: a,
      });
      pendingOfA += res.body.items.length;
    }
    expect(pendingOfA).toBe(6);
  });
});
