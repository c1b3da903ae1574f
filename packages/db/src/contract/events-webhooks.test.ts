import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeAdapters } from "../../test/stores";
import type { ConversationEventRow, NewWebhookDelivery } from "../port/rows";
import type { Store } from "../port/store";

let store: Store;
let repos: Store;

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store", (adapter) => {
  beforeEach(async () => {
    store = (await adapter.open()).store;
    repos = store;
    await repos.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    await repos.webhooks.insert(webhook("wh_1"));
    await repos.webhooks.insert(webhook("wh_2"));
  });
  afterEach(() => adapter.cleanup());

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

  it("stores many events at once, telling which were new", async () => {
    await repos.conversationEvents.insertIfNew(event("e1", 1_000));
    const rows = [event("e2", 2_000), event("e1", 1_000), event("e3", 3_000), event("e2", 2_000)];
    expect(await repos.conversationEvents.insertManyIfNew(rows)).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(await repos.conversationEvents.insertManyIfNew([])).toEqual([]);
    expect(await repos.conversationEvents.count({ conversationId: "c1" })).toBe(3);
  });

  describe("webhook deliveries", () => {
    const due = (query: Partial<Parameters<Store["webhookDeliveries"]["dueHeads"]>[0]> = {}) =>
      repos.webhookDeliveries.dueHeads({
        now: 1,
        limit: 10,
        perOwner: 10,
        excludeSeqs: [],
        excludeOwners: [],
        ...query,
      });

    it("offers only the oldest pending delivery of each webhook and stream, once due", async () => {
      await repos.webhookDeliveries.insert(delivery("d1", "wh_1", "c1"));
      await repos.webhookDeliveries.insert(delivery("d2", "wh_1", "c1"));
      await repos.webhookDeliveries.insert(delivery("d3", "wh_1", "c2", 5));
      await repos.webhookDeliveries.insert(delivery("d4", "wh_2", "c1"));
      const heads = await due();
      expect(heads.map((d) => [d.id, d.ownerId])).toEqual([
        ["d1", "usr_a"],
        ["d4", "usr_a"],
      ]);
      expect(await repos.webhookDeliveries.nextDueAt(1)).toBe(5);
      expect((await due({ now: 5 })).map((d) => d.id)).toEqual(["d1", "d4", "d3"]);
      const d1 = heads[0]!;
      expect((await due({ excludeSeqs: [d1.seq] })).map((d) => d.id)).toEqual(["d4"]);
      await repos.webhookDeliveries.update(d1.seq, { status: "failed", updatedAt: 2 });
      expect((await due({ now: 5 })).map((d) => d.id)).toEqual(["d2", "d4", "d3"]);
      expect(await repos.webhookDeliveries.nextDueAt(5)).toBeNull();
    });

    it("spreads due heads over owners and their webhooks, at most perOwner each", async () => {
      await repos.users.insert({ id: "usr_b", name: "b", isAdmin: false, createdAt: 1 });
      await repos.webhooks.insert({ ...webhook("wh_b"), ownerId: "usr_b" });
      // A's backlog is older than B's only delivery: four streams on wh_1, one on wh_2.
      for (const stream of ["s1", "s2", "s3", "s4"]) {
        await repos.webhookDeliveries.insert(delivery(`a1_${stream}`, "wh_1", stream));
      }
      await repos.webhookDeliveries.insert(delivery("a2_s1", "wh_2", "s1"));
      await repos.webhookDeliveries.insert(delivery("b_s1", "wh_b", "s1", 1));
      expect((await due({ perOwner: 3 })).map((d) => d.id)).toEqual([
        "a1_s1",
        "b_s1",
        "a2_s1",
        "a1_s2",
      ]);
      expect((await due({ perOwner: 3, limit: 2 })).map((d) => d.id)).toEqual(["a1_s1", "b_s1"]);
      expect((await due({ excludeOwners: ["usr_a"] })).map((d) => d.ownerId)).toEqual(["usr_b"]);
    });

    it("inserts many deliveries at once, in order", async () => {
      await repos.webhookDeliveries.insertMany([
        delivery("d1", "wh_1", "c1"),
        delivery("d2", "wh_1", "c1"),
        delivery("d3", "wh_2", "c1"),
      ]);
      await repos.webhookDeliveries.insertMany([]);
      expect((await due()).map((d) => d.id)).toEqual(["d1", "d3"]);
      const page = await repos.webhookDeliveries.search({ webhookId: "wh_1" }, { limit: 5 });
      expect(page.items.map((d) => d.id)).toEqual(["d2", "d1"]);
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
});
