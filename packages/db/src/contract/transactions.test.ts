import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeAdapters } from "../../test/stores";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow } from "../port/rows";
import type { Store } from "../port/store";
import type { Repositories } from "../repositories";

function sandbox(id: string, status = "STARTING"): SandboxRow {
  return completeSandbox({
    id,
    ownerId: "usr_a",
    specId: "default",
    runtime: "process",
    status,
    statusDetail: null,
    sessionApiKey: "k",
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt: 1,
    updatedAt: 1,
  });
}

/** A promise and the function that settles it: lets a test hold a transaction open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const ACTIVE = ["STARTING", "RUNNING"];
const LIMIT = 3;

class LimitReached extends Error {}

/** One create as the control plane makes it: count the active rows, then insert one. */
async function create(repos: Repositories) {
  const active = await repos.sandboxes.countByStatus(ACTIVE);
  // Whatever the adapter does between two awaits, other creates may run here.
  await new Promise((resolve) => setImmediate(resolve));
  if (active >= LIMIT) throw new LimitReached();
  await repos.sandboxes.insert(sandbox(`sb_${crypto.randomUUID()}`));
}

/** The transaction contract of the store port, for every adapter. */
describe.each(storeAdapters())("$name store", (adapter) => {
  let store: Store;

  beforeEach(async () => {
    store = (await adapter.open()).store;
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
  });
  afterEach(() => adapter.cleanup());

  it("commits when the work resolves and rolls back when it rejects", async () => {
    await store.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox("sb_kept"));
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.sandboxes.insert(sandbox("sb_dropped"));
        expect(await tx.sandboxes.get("sb_dropped")).toBeDefined();
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await store.sandboxes.get("sb_kept")).toBeDefined();
    expect(await store.sandboxes.get("sb_dropped")).toBeUndefined();
  });

  it("hides uncommitted rows from reads outside, which answer meanwhile", async () => {
    const hold = gate();
    const inserted = gate();
    const tx = store.transaction(async (t) => {
      await t.sandboxes.insert(sandbox("sb_tx"));
      expect(await t.sandboxes.get("sb_tx")).toBeDefined();
      inserted.open();
      await hold.opened;
    });
    await inserted.opened;
    expect(await store.sandboxes.get("sb_tx")).toBeUndefined();
    hold.open();
    await tx;
    expect(await store.sandboxes.get("sb_tx")).toBeDefined();
  });

  it("refuses a handle used after its transaction ended", async () => {
    let leaked: Repositories | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.sandboxes.insert(sandbox("sb_late"))).rejects.toThrow(/has ended/);
    expect(await store.sandboxes.get("sb_late")).toBeUndefined();
  });

  it("overshoots a count + insert limit without a transaction (the probe can see it)", async () => {
    await Promise.allSettled(Array.from({ length: 20 }, () => create(store)));
    expect(await store.sandboxes.countByStatus(ACTIVE)).toBeGreaterThan(LIMIT);
  });

  it("never passes the limit under many concurrent creates in transactions", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => store.transaction((tx) => create(tx))),
    );
    const created = results.filter((r) => r.status === "fulfilled");
    const refused = results.filter(
      (r) => r.status === "rejected" && r.reason instanceof LimitReached,
    );
    expect(created).toHaveLength(LIMIT);
    expect(refused).toHaveLength(50 - LIMIT);
    expect(await store.sandboxes.countByStatus(ACTIVE)).toBe(LIMIT);
  });
});

describe.each(storeAdapters())("two $name stores on one database (two replicas)", (adapter) => {
  afterEach(() => adapter.cleanup());

  it("never pass the limit together", async () => {
    const opened = await adapter.open();
    const first = opened.store;
    const second = await opened.reopen({ busyRetryMs: 10_000 });
    await first.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? first : second).transaction((tx) => create(tx)),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(LIMIT);
    expect(await second.sandboxes.countByStatus(ACTIVE)).toBe(LIMIT);
  });
});
