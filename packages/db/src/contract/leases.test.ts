import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenedStore, storeAdapters } from "../../test/stores";
import type { NewWebhookDelivery, WebhookDeliveryRow } from "../port/rows";
import type { Store } from "../port/store";

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store: leases and delivery claims", (adapter) => {
  let opened: OpenedStore;
  let store: Store;
  // The leases' clock (epoch ms): time passes only when a test moves it.
  let clock = 1_800_000_000_000;

  beforeEach(async () => {
    opened = await adapter.open({ now: () => clock });
    store = opened.store;
  });
  afterEach(() => adapter.cleanup());

  it("says whether the store is shared with other processes", () => {
    expect(store.shared).toBe(adapter.name === "postgres");
  });

  describe("leases", () => {
    it("is held by one holder until released; the holder renews it", async () => {
      expect(await store.leases.acquire("duties", "rpl_a", 60_000)).toBe(true);
      const first = await store.leases.get("duties");
      expect(first).toMatchObject({ name: "duties", holder: "rpl_a" });
      // Another holder is refused while it is live.
      expect(await store.leases.acquire("duties", "rpl_b", 60_000)).toBe(false);
      expect((await store.leases.get("duties"))?.holder).toBe("rpl_a");
      // A renewal moves the expiry on and keeps when it was taken.
      clock += 5;
      expect(await store.leases.acquire("duties", "rpl_a", 60_000)).toBe(true);
      const renewed = await store.leases.get("duties");
      expect(renewed?.acquiredAt).toBe(first?.acquiredAt);
      expect(renewed?.expiresAt).toBeGreaterThan(first?.expiresAt ?? Number.POSITIVE_INFINITY);
      // Releasing by someone else does nothing; by the holder frees it at once.
      await store.leases.release("duties", "rpl_b");
      expect(await store.leases.acquire("duties", "rpl_b", 60_000)).toBe(false);
      await store.leases.release("duties", "rpl_a");
      expect(await store.leases.get("duties")).toBeUndefined();
      expect(await store.leases.acquire("duties", "rpl_b", 60_000)).toBe(true);
      expect((await store.leases.get("duties"))?.holder).toBe("rpl_b");
    });

    it("passes to another holder once it expired", async () => {
      expect(await store.leases.acquire("duties", "rpl_a", 20)).toBe(true);
      // Positive control: live, the other holder is refused (one millisecond before it expires).
      clock += 19;
      expect(await store.leases.acquire("duties", "rpl_b", 60_000)).toBe(false);
      clock += 1;
      expect(await store.leases.acquire("duties", "rpl_b", 60_000)).toBe(true);
      const taken = await store.leases.get("duties");
      expect(taken?.holder).toBe("rpl_b");
      // The old holder's renewal now fails: it lost the lease.
      expect(await store.leases.acquire("duties", "rpl_a", 60_000)).toBe(false);
    });

    it("gives a contested lease to exactly one of many concurrent holders", async () => {
      const holders = Array.from({ length: 12 }, (_, i) => `rpl_${i}`);
      const won = await Promise.all(holders.map((h) => store.leases.acquire("duties", h, 60_000)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = holders[won.indexOf(true)];
      expect((await store.leases.get("duties"))?.holder).toBe(winner);
    });

    it("lists the live leases of a prefix", async () => {
      await store.leases.acquire("replica:rpl_b", "rpl_b", 60_000);
      await store.leases.acquire("replica:rpl_a", "rpl_a", 60_000);
      await store.leases.acquire("replica:rpl_gone", "rpl_gone", 20);
      await store.leases.acquire("duties", "rpl_a", 60_000);
      expect((await store.leases.listLive("replica:")).map((l) => l.holder)).toEqual([
        "rpl_a",
        "rpl_b",
        "rpl_gone",
      ]);
      clock += 20;
      const live = await store.leases.listLive("replica:");
      expect(live.map((l) => l.holder)).toEqual(["rpl_a", "rpl_b"]);
    });
  });

  describe("webhook delivery claims", () => {
    beforeEach(async () => {
      await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
      await store.webhooks.insert({
        id: "wh_1",
        ownerId: "usr_a",
        url: "http://127.0.0.1:1/hook",
        events: null,
        conversationId: null,
        secret: "s",
        createdAt: 1,
      });
    });

    function delivery(id: string, stream: string): NewWebhookDelivery {
      return {
        id,
        webhookId: "wh_1",
        stream,
        eventId: `evt_${id}`,
        eventKind: "MessageEvent",
        payload: "{}",
        status: "pending",
        attempts: 0,
        nextAttemptAt: 0,
        lastStatusCode: null,
        lastError: null,
        createdAt: 1,
        updatedAt: 1,
        completedAt: null,
      };
    }
    const due = (now: number) =>
      store.webhookDeliveries.dueHeads({
        now,
        limit: 50,
        perOwner: 50,
        excludeSeqs: [],
        excludeOwners: [],
      });

    it("hands a row to one holder until its claim expires or its outcome is stored", async () => {
      await store.webhookDeliveries.insert(delivery("d1", "s1"));
      await store.webhookDeliveries.insert(delivery("d2", "s2"));
      const [d1, d2] = await due(10);
      if (!d1 || !d2) throw new Error("both deliveries should be due");
      expect(await store.webhookDeliveries.claim([d1.seq, d2.seq], "rpl_a", 10, 100)).toEqual(
        expect.arrayContaining([d1.seq, d2.seq]),
      );
      // Claimed rows are neither offered nor claimable by another holder before `until`.
      expect(await due(50)).toEqual([]);
      expect(await store.webhookDeliveries.claim([d1.seq], "rpl_b", 50, 150)).toEqual([]);
      // The worker wakes when a claim ends.
      expect(await store.webhookDeliveries.nextDueAt(50)).toBe(100);
      // An outcome stored ends the claim (d1 succeeded; d2 stays claimed).
      await store.webhookDeliveries.update(d1.seq, { status: "succeeded", updatedAt: 60 });
      expect(await store.webhookDeliveries.claim([d1.seq], "rpl_b", 60, 160)).toEqual([]);
      // Past `until` the row is free for another holder (its sender is gone).
      expect((await due(100)).map((d) => d.id)).toEqual(["d2"]);
      expect(await store.webhookDeliveries.claim([d2.seq], "rpl_b", 100, 200)).toEqual([d2.seq]);
      expect(await store.webhookDeliveries.get("d2")).toMatchObject({
        claimedBy: "rpl_b",
        claimedUntil: 200,
      });
      // A retry scheduled by the holder clears the claim: due again at its retry time.
      await store.webhookDeliveries.update(d2.seq, { nextAttemptAt: 120, updatedAt: 101 });
      expect(await store.webhookDeliveries.get("d2")).toMatchObject({
        claimedBy: null,
        claimedUntil: null,
      });
      expect((await due(120)).map((d) => d.id)).toEqual(["d2"]);
    });

    it("offers the pending rows behind claimed heads, each stream's in order", async () => {
      for (const id of ["a1", "b1", "a2", "a3", "b2", "a4"]) {
        await store.webhookDeliveries.insert(delivery(id, id.startsWith("a") ? "sa" : "sb"));
      }
      const heads = await due(10);
      expect(heads.map((d) => d.id)).toEqual(["a1", "b1"]);
      const seqs = heads.map((d) => d.seq);
      const behind = (perStream: number) =>
        store.webhookDeliveries
          .pendingBehind(seqs, perStream)
          .then((rows) => rows.map((r) => r.id));
      expect(await behind(2)).toEqual(["a2", "a3", "b2"]);
      expect(await behind(10)).toEqual(["a2", "a3", "b2", "a4"]);
      expect(await behind(0)).toEqual([]);
      // A row done for good is no longer behind its head (rows come in seq order).
      const a2 = await store.webhookDeliveries.get("a2");
      await store.webhookDeliveries.update(a2?.seq ?? 0, { status: "failed", updatedAt: 2 });
      expect(await behind(2)).toEqual(["a3", "b2", "a4"]);
    });

    it("records several outcomes at once, only on rows the holder still claims", async () => {
      for (const id of ["d1", "d2", "d3"]) await store.webhookDeliveries.insert(delivery(id, "s"));
      const rows = await Promise.all(
        ["d1", "d2", "d3"].map(async (id) => {
          const row = await store.webhookDeliveries.get(id);
          if (!row) throw new Error(`${id} should be stored`);
          return row;
        }),
      );
      const [d1, d2, d3] = rows as [WebhookDeliveryRow, WebhookDeliveryRow, WebhookDeliveryRow];
      expect(await store.webhookDeliveries.claim([d1.seq, d2.seq], "rpl_a", 10, 100)).toHaveLength(
        2,
      );
      // d2's claim ran out and another holder took it: rpl_a's outcome for it is not written.
      expect(await store.webhookDeliveries.claim([d2.seq], "rpl_b", 100, 200)).toEqual([d2.seq]);
      const fields = { nextAttemptAt: 0, updatedAt: 120 };
      await store.webhookDeliveries.recordOutcomes(
        [
          {
            ...fields,
            seq: d1.seq,
            status: "succeeded",
            attempts: 1,
            lastStatusCode: 204,
            lastError: null,
            completedAt: 120,
          },
          {
            ...fields,
            seq: d2.seq,
            status: "failed",
            attempts: 8,
            lastStatusCode: 500,
            lastError: "http_5xx",
            completedAt: 120,
          },
          {
            ...fields,
            seq: d3.seq,
            status: "failed",
            attempts: 1,
            lastStatusCode: null,
            lastError: "timeout",
            completedAt: 120,
          },
        ],
        "rpl_a",
      );
      expect(await store.webhookDeliveries.get("d1")).toMatchObject({
        status: "succeeded",
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        completedAt: 120,
        updatedAt: 120,
        claimedBy: null,
        claimedUntil: null,
      });
      expect(await store.webhookDeliveries.get("d2")).toMatchObject({
        status: "pending",
        attempts: 0,
        claimedBy: "rpl_b",
      });
      // d3 was never claimed by rpl_a.
      expect(await store.webhookDeliveries.get("d3")).toMatchObject({ status: "pending" });
      // A retry: pending again, due at its next attempt, claim ended.
      await store.webhookDeliveries.recordOutcomes(
        [
          {
            seq: d2.seq,
            status: "pending",
            attempts: 1,
            nextAttemptAt: 300,
            lastStatusCode: null,
            lastError: "connect_refused",
            completedAt: null,
            updatedAt: 130,
          },
        ],
        "rpl_b",
      );
      expect(await store.webhookDeliveries.get("d2")).toMatchObject({
        status: "pending",
        attempts: 1,
        nextAttemptAt: 300,
        lastError: "connect_refused",
        claimedBy: null,
        claimedUntil: null,
      });
      expect(await store.webhookDeliveries.nextDueAt(130)).toBe(300);
    });

    it("gives each row to exactly one of several concurrent claimers", async () => {
      for (let i = 0; i < 20; i++) await store.webhookDeliveries.insert(delivery(`d${i}`, `s${i}`));
      const seqs = (await due(10)).map((d) => d.seq);
      expect(seqs).toHaveLength(20);
      const claims = await Promise.all(
        ["rpl_a", "rpl_b", "rpl_c", "rpl_d"].map((holder) =>
          store.webhookDeliveries.claim(seqs, holder, 10, 1_000),
        ),
      );
      const all = claims.flat();
      expect(all.sort((a, b) => a - b)).toEqual([...seqs].sort((a, b) => a - b));
    });
  });
});
