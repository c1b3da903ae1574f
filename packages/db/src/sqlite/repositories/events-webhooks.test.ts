import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ConversationEventRow, NewWebhookDelivery } from "../../port/rows";
import type { Store } from "../../port/store";
import { createSecretBox } from "../../secrets/secret-box";
import { createSqliteStore } from "../sqlite-store";

let store: Store;
let repos: Store;

beforeEach(async () => {
  store = createSqliteStore(":memory:", { secretBox: createSecretBox(randomBytes(32)) });
  repos = store;
  await repos.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
  await repos.webhooks.insert(webhook("wh_1"));
  await repos.webhooks.insert(webhook("wh_2"));
});
afterEach(() => store.close());

function webhook(id: string) {
  return {
    id,
    ownerId: "usr_a",
    url: "http://127.0.0.1:1/hook",
    events: null,
    conversationId: null,
    secret: "s",
    createdAt: 1,
  };
}

function event(id: string, timestampUs: number, kind = "MessageEvent"): ConversationEventRow {
  return {
    id,
    conversationId: "c1",
    ownerId: "usr_a",
    timestamp: new Date(timestampUs / 1000).toISOString(),
    timestampUs,
    kind,
    source: "user",
    body: { id, kind },
    receivedAt: 1,
  };
}

function delivery(id: string, webhookId: string, stream: string, due = 0): NewWebhookDelivery {
  return {
    id,
    webhookId,
    stream,
    eventId: `evt_${id}`,
    eventKind: "MessageEvent",
    payload: "{}",
    status: "pending",
    attempts: 0,
    nextAttemptAt: due,
    lastStatusCode: null,
    lastError: null,
    createdAt: 1,
    updatedAt: 1,
    completedAt: null,
  };
}

describe("conversation events", () => {
  it("stores an event id once and pages by timestamp with a kind filter", async () => {
    expect(await repos.conversationEvents.insertIfNew(event("e1", 1_000))).toBe(true);
    expect(await repos.conversationEvents.insertIfNew(event("e1", 1_000))).toBe(false);
    await repos.conversationEvents.insertIfNew(event("e3", 3_000, "ActionEvent"));
    await repos.conversationEvents.insertIfNew(event("e2", 2_000));
    expect((await repos.conversationEvents.latest("c1"))?.id).toBe("e3");
    const first = await repos.conversationEvents.search({ conversationId: "c1" }, "asc", {
      limit: 2,
    });
    expect(first.items.map((e) => e.id)).toEqual(["e1", "e2"]);
    const rest = await repos.conversationEvents.search({ conversationId: "c1" }, "asc", {
      limit: 2,
      pageId: first.nextPageId ?? undefined,
    });
    expect(rest.items.map((e) => e.id)).toEqual(["e3"]);
    expect(rest.nextPageId).toBeNull();
    const messages = await repos.conversationEvents.search(
      { conversationId: "c1", kind: "MessageEvent" },
      "desc",
      { limit: 10 },
    );
    expect(messages.items.map((e) => e.id)).toEqual(["e2", "e1"]);
  });
});

describe("webhook deliveries", () => {
  it("offers only the oldest pending delivery of each webhook and stream", async () => {
    await repos.webhookDeliveries.insert(delivery("d1", "wh_1", "c1"));
    await repos.webhookDeliveries.insert(delivery("d2", "wh_1", "c1"));
    await repos.webhookDeliveries.insert(delivery("d3", "wh_1", "c2", 5));
    await repos.webhookDeliveries.insert(delivery("d4", "wh_2", "c1"));
    const heads = await repos.webhookDeliveries.pendingHeads(10, []);
    expect(heads.map((d) => d.id)).toEqual(["d1", "d4", "d3"]);
    const d1 = heads[0]!;
    expect((await repos.webhookDeliveries.pendingHeads(10, [d1.seq])).map((d) => d.id)).toEqual([
      "d4",
      "d3",
    ]);
    await repos.webhookDeliveries.update(d1.seq, { status: "failed", updatedAt: 2 });
    expect((await repos.webhookDeliveries.pendingHeads(10, [])).map((d) => d.id)).toEqual([
      "d2",
      "d4",
      "d3",
    ]);
  });

  it("lists a webhook's deliveries newest first and drops them with the webhook", async () => {
    for (const id of ["d1", "d2", "d3"])
      await repos.webhookDeliveries.insert(delivery(id, "wh_1", "c"));
    const page = await repos.webhookDeliveries.search({ webhookId: "wh_1" }, { limit: 2 });
    expect(page.items.map((d) => d.id)).toEqual(["d3", "d2"]);
    const next = await repos.webhookDeliveries.search(
      { webhookId: "wh_1" },
      { limit: 2, pageId: page.nextPageId ?? undefined },
    );
    expect(next.items.map((d) => d.id)).toEqual(["d1"]);
    await repos.webhooks.remove("wh_1");
    expect(await repos.webhookDeliveries.get("d1")).toBeUndefined();
    expect((await repos.webhooks.listByOwner("usr_a")).map((w) => w.id)).toEqual(["wh_2"]);
  });
});
