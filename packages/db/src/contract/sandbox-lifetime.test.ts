import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newSandbox } from "../../test/sandbox-row";
import { type OpenedStore, storeAdapters } from "../../test/stores";
import { completeSandbox } from "../port/new-sandbox";
import type { Store } from "../port/store";

const sandbox = newSandbox;

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store: sandbox lifetime", (adapter) => {
  let opened: OpenedStore;
  let store: Store;

  beforeEach(async () => {
    opened = await adapter.open();
    store = opened.store;
    for (const id of ["usr_pool", "usr_a"]) {
      await store.users.insert({ id, name: id, isAdmin: false, createdAt: 1 });
    }
  });
  afterEach(() => adapter.cleanup());

  it("inserts a sandbox without a policy as having none, and keeps one that has it", async () => {
    expect(await store.sandboxes.insert(sandbox("sb_none"))).toEqual(
      completeSandbox(sandbox("sb_none")),
    );
    expect(await store.sandboxes.get("sb_none")).toMatchObject({
      activeLimitMs: null,
      onTimeout: null,
      activeMs: 0,
      runningSince: null,
      lifetimeDueAt: null,
    });
    const lifetime = {
      activeLimitMs: 60_000,
      onTimeout: "delete",
      idlePauseAfterMs: 30_000,
      deletePausedAfterMs: 86_400_000,
      activeMs: 5,
      runningSince: 1_000,
      pausedAt: null,
      lifetimeDueAt: 31_000,
    };
    await store.sandboxes.insert(sandbox("sb_set", lifetime));
    expect(await store.sandboxes.get("sb_set")).toMatchObject(lifetime);
    const paused = {
      activeMs: 9_000,
      runningSince: null,
      pausedAt: 10_000,
      lifetimeDueAt: 96_400_000,
    };
    expect(await store.sandboxes.update("sb_set", paused)).toMatchObject({
      ...lifetime,
      ...paused,
    });
  });

  it("lists only the sandboxes due by now, earliest first, at most the limit", async () => {
    await store.sandboxes.insert(sandbox("sb_later", { lifetimeDueAt: 5_000 }));
    await store.sandboxes.insert(sandbox("sb_never"));
    await store.sandboxes.insert(sandbox("sb_second", { lifetimeDueAt: 2_000, status: "PAUSED" }));
    await store.sandboxes.insert(sandbox("sb_first", { lifetimeDueAt: 1_000 }));
    await store.sandboxes.insert(sandbox("sb_now", { lifetimeDueAt: 3_000 }));

    const due = await store.sandboxes.listLifetimeDue(3_000, 10);
    expect(due.map((r) => r.id)).toEqual(["sb_first", "sb_second", "sb_now"]);
    // Rows come back whole, secrets opened.
    expect(due[0]?.sessionApiKey).toBe("key-sb_first");
    expect((await store.sandboxes.listLifetimeDue(3_000, 2)).map((r) => r.id)).toEqual([
      "sb_first",
      "sb_second",
    ]);
    expect(await store.sandboxes.listLifetimeDue(999, 10)).toEqual([]);
    // Moving the due time out of range takes the row out of the list.
    await store.sandboxes.update("sb_first", { lifetimeDueAt: null });
    expect((await store.sandboxes.listLifetimeDue(3_000, 10)).map((r) => r.id)).toEqual([
      "sb_second",
      "sb_now",
    ]);
  });

  it("reschedules a due row only while its status and due time are as expected", async () => {
    await store.sandboxes.insert(sandbox("sb_1", { lifetimeDueAt: 1_000, lastActivityAt: 5 }));
    const next = { lifetimeDueAt: 9_000, lastActivityAt: 8_000 };
    // Moved meanwhile (another due time, another status): left as it is.
    expect(
      await store.sandboxes.rescheduleLifetime(
        "sb_1",
        { status: "RUNNING", lifetimeDueAt: 999 },
        next,
      ),
    ).toBe(false);
    expect(
      await store.sandboxes.rescheduleLifetime(
        "sb_1",
        { status: "PAUSED", lifetimeDueAt: 1_000 },
        next,
      ),
    ).toBe(false);
    expect(await store.sandboxes.get("sb_1")).toMatchObject({
      lifetimeDueAt: 1_000,
      lastActivityAt: 5,
    });
    expect(
      await store.sandboxes.rescheduleLifetime(
        "sb_1",
        { status: "RUNNING", lifetimeDueAt: 1_000 },
        next,
      ),
    ).toBe(true);
    expect(await store.sandboxes.get("sb_1")).toMatchObject(next);
    expect(await store.sandboxes.listLifetimeDue(8_999, 10)).toEqual([]);
    // Inside a transaction too, and to "not due until it moves" (null).
    await store.transaction(async (tx) => {
      expect(
        await tx.sandboxes.rescheduleLifetime(
          "sb_1",
          { status: "RUNNING", lifetimeDueAt: 9_000 },
          { lifetimeDueAt: null, lastActivityAt: 8_000 },
        ),
      ).toBe(true);
    });
    expect((await store.sandboxes.get("sb_1"))?.lifetimeDueAt).toBeNull();
  });

  it("sets a claimer's policy with the claim of a pool sandbox", async () => {
    await store.sandboxes.insert(sandbox("sb_pool", { ownerId: "usr_pool" }));
    const claimed = await store.sandboxes.claim("sb_pool", "usr_pool", {
      ownerId: "usr_a",
      sessionApiKey: "new",
      labels: {},
      network: DEFAULT_SANDBOX_EGRESS,
      createdAt: 50,
      updatedAt: 50,
      activeLimitMs: 10_000,
      onTimeout: "pause",
      runningSince: 50,
      lifetimeDueAt: 10_050,
    });
    expect(claimed).toMatchObject({
      ownerId: "usr_a",
      activeLimitMs: 10_000,
      lifetimeDueAt: 10_050,
    });
    expect((await store.sandboxes.listLifetimeDue(10_050, 10)).map((r) => r.id)).toEqual([
      "sb_pool",
    ]);
  });

  it("finds due rows through the index on lifetime_due_at", async () => {
    const plan =
      adapter.name === "sqlite"
        ? await opened.raw(
            "EXPLAIN QUERY PLAN SELECT * FROM sandboxes WHERE lifetime_due_at <= ? ORDER BY lifetime_due_at LIMIT 10",
            [1],
          )
        : await opened.raw(
            "SELECT indexdef AS detail FROM pg_indexes WHERE tablename = 'sandboxes' AND indexname = 'sandboxes_lifetime_due_idx'",
          );
    // SQLite: the plan searches the index; PostgreSQL (which plans small tables as scans): it exists.
    expect(plan.map((row) => String(row.detail)).join("\n")).toMatch(
      adapter.name === "sqlite"
        ? /USING INDEX sandboxes_lifetime_due_idx/
        : /sandboxes_lifetime_due_idx ON .*\(lifetime_due_at\)/,
    );
  });
});
