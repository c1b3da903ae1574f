import type { NewWebhookDelivery, WebhookDeliveryRow } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { type Receiver, startReceiver } from "../../../test/receiver";
import { pollUntil } from "../../../test/wait";
import type { WebhookPayload } from "../contracts";
import { deliveriesFor } from "../service/queue-deliveries";

// A real receiver on 127.0.0.1 and the core's own delivery worker over a SQLite file; the
// deliveries are written straight into the outbox, as ingestion queues them.
let t: TestCore;
let alice: TestUser;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestCore({
    config: {
      webhookAllowPrivateNetworks: true,
      webhookMaxAttempts: 3,
      webhookBackoffBaseMs: 50,
      webhookBackoffMaxMs: 200,
    },
  });
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** Ids of queued deliveries, by event id. */
const queued = new Map<string, string>();

/** Queues one delivery per event id on `stream` of the webhook, as ingestion would. */
async function queue(webhookId: string, stream: string, eventIds: string[]): Promise<void> {
  const hook = await t.store.webhooks.get(webhookId);
  if (!hook) throw new Error("the webhook should be stored");
  const rows: NewWebhookDelivery[] = [];
  for (const eventId of eventIds) {
    const payload: WebhookPayload = {
      event_id: eventId,
      kind: "MessageEvent",
      occurred_at: new Date().toISOString(),
      sandbox_id: "sb_x",
      conversation_id: null,
      data: {},
    };
    const occurrence = { ownerId: alice.id, stream, payload };
    rows.push(...(await deliveriesFor(t.deps, occurrence, t.store, [hook])));
  }
  for (const row of rows) queued.set(row.eventId, row.id);
  await t.store.webhookDeliveries.insertMany(rows);
}

async function rowsOf(eventIds: string[]): Promise<WebhookDeliveryRow[]> {
  const rows = await Promise.all(
    eventIds.map((id) => t.store.webhookDeliveries.get(queued.get(id) ?? "")),
  );
  return rows.filter((row): row is WebhookDeliveryRow => row !== undefined);
}

/** Waits (bounded) until every one of `eventIds` is done, and answers their rows. */
function settled(eventIds: string[]): Promise<WebhookDeliveryRow[]> {
  return pollUntil(
    () => rowsOf(eventIds),
    (rows) => rows.length === eventIds.length && rows.every((row) => row.status !== "pending"),
    "the deliveries were not all done",
  );
}

const arrivals = (path: string) => receiver.at(path).map((request) => request.payload.event_id);

describe("the delivery worker", () => {
  it("sends a stream's queue in order, holding the rest back while one waits for a retry", async () => {
    const hook = await alice.caller.webhooks.create({ url: `${receiver.url}/runs` });
    await t.core.webhookWorker.stop();
    const first = ["a1", "a2", "a3", "a4", "a5", "a6"];
    const second = ["b1", "b2"];
    await queue(hook.id, "stream-a", first);
    await queue(hook.id, "stream-b", second);
    // a3 fails its first attempt: a4 to a6 were claimed with it but must wait for its retry.
    let refused = false;
    receiver.respond = (request) => {
      if (request.payload.event_id !== "a3" || refused) return undefined;
      refused = true;
      return 503;
    };
    t.core.webhookWorker.start();
    const rows = await settled([...first, ...second]);
    receiver.respond = null;

    const arrived = arrivals("/runs");
    expect(arrived.filter((id) => id.startsWith("a"))).toEqual([
      "a1",
      "a2",
      "a3",
      "a3",
      "a4",
      "a5",
      "a6",
    ]);
    expect(arrived.filter((id) => id.startsWith("b"))).toEqual(second);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: "succeeded",
        attempts: row.eventId === "a3" ? 2 : 1,
        lastStatusCode: 200,
        claimedBy: null,
        claimedUntil: null,
      });
    }
    await alice.caller.webhooks.delete({ id: hook.id });
  });

  it("sends what another worker claimed and left once its claim runs out", async () => {
    const hook = await alice.caller.webhooks.create({ url: `${receiver.url}/taken-over` });
    await t.core.webhookWorker.stop();
    const ids = ["c1", "c2", "c3"];
    await queue(hook.id, "stream-c", ids);
    // A replica claimed all three, then died before it sent anything.
    const seqs = (await rowsOf(ids)).map((row) => row.seq);
    const now = Date.now();
    expect(await t.store.webhookDeliveries.claim(seqs, "rpl_gone", now, now + 300)).toHaveLength(3);
    t.core.webhookWorker.start();
    const rows = await settled(ids);
    expect(arrivals("/taken-over")).toEqual(ids);
    expect(rows.every((row) => row.status === "succeeded" && row.claimedBy === null)).toBe(true);
    // Nothing was sent before the dead replica's claim ended.
    const sentAt = receiver.at("/taken-over").map((r) => Number(r.headers["webhook-timestamp"]));
    expect(Math.min(...sentAt) * 1000).toBeGreaterThanOrEqual(
      Math.floor((now + 300) / 1000) * 1000,
    );
    await alice.caller.webhooks.delete({ id: hook.id });
  });
});
