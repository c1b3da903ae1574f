import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenedStore, storeAdapters } from "../../test/stores";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow } from "../port/rows";
import type { Store } from "../port/store";

const poolMember = (id: string, extra: Partial<SandboxRow> = {}): SandboxRow =>
  completeSandbox({
    id,
    ownerId: "usr_pool",
    specId: "default",
    runtime: "process",
    status: "RUNNING",
    statusDetail: "warm",
    sessionApiKey: "pool-key",
    agentServerUrl: "http://127.0.0.1:1",
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: 5,
    createdAt: 10,
    updatedAt: 10,
    ...extra,
  });

const claim = (ownerId: string) => ({
  ownerId,
  sessionApiKey: `key-of-${ownerId}`,
  labels: { team: ownerId },
  network: {
    allowInternet: false,
    allowOut: [{ kind: "host" as const, name: `${ownerId}.example`, wildcard: false, port: 443 }],
    denyOut: [],
  },
  createdAt: 99,
  updatedAt: 99,
});

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store: sandboxes.claim", (adapter) => {
  let opened: OpenedStore;
  let store: Store;

  beforeEach(async () => {
    opened = await adapter.open();
    store = opened.store;
    for (const id of ["usr_pool", "usr_a", "usr_b"]) {
      await store.users.insert({ id, name: id, isAdmin: false, createdAt: 1 });
    }
  });
  afterEach(() => adapter.cleanup());

  it("hands a RUNNING pool sandbox to its new owner once", async () => {
    await store.sandboxes.insert(poolMember("sb_1"));
    const claimed = await store.sandboxes.claim("sb_1", "usr_pool", claim("usr_a"));
    expect(claimed).toMatchObject({
      id: "sb_1",
      ownerId: "usr_a",
      sessionApiKey: "key-of-usr_a",
      labels: { team: "usr_a" },
      network: claim("usr_a").network,
      createdAt: 99,
      statusDetail: null,
      lastActivityAt: null,
      status: "RUNNING",
    });
    expect((await store.sandboxes.get("sb_1"))?.sessionApiKey).toBe("key-of-usr_a");
    expect((await store.sandboxes.get("sb_1"))?.network).toEqual(claim("usr_a").network);
    // The second claimer finds it taken.
    expect(await store.sandboxes.claim("sb_1", "usr_pool", claim("usr_b"))).toBeUndefined();
    expect((await store.sandboxes.get("sb_1"))?.ownerId).toBe("usr_a");
  });

  it("does not claim a pool sandbox that is not RUNNING", async () => {
    await store.sandboxes.insert(poolMember("sb_2", { status: "STARTING" }));
    expect(await store.sandboxes.claim("sb_2", "usr_pool", claim("usr_a"))).toBeUndefined();
    expect((await store.sandboxes.get("sb_2"))?.ownerId).toBe("usr_pool");
  });

  it("lists an owner's RUNNING sandboxes of a spec, oldest first, up to the limit", async () => {
    await store.sandboxes.insert(poolMember("sb_new", { createdAt: 30 }));
    await store.sandboxes.insert(poolMember("sb_old", { createdAt: 10 }));
    await store.sandboxes.insert(poolMember("sb_mid", { createdAt: 20 }));
    await store.sandboxes.insert(poolMember("sb_starting", { status: "STARTING", createdAt: 1 }));
    await store.sandboxes.insert(poolMember("sb_spec", { specId: "other", createdAt: 2 }));
    await store.sandboxes.insert(poolMember("sb_owner", { ownerId: "usr_a", createdAt: 3 }));
    const listed = await store.sandboxes.listRunning("usr_pool", "default", 10);
    expect(listed.map((row) => row.id)).toEqual(["sb_old", "sb_mid", "sb_new"]);
    // Keys come out as they went in (opened), like every other read of the row.
    expect(listed[0]?.sessionApiKey).toBe("pool-key");
    const first = await store.sandboxes.listRunning("usr_pool", "default", 2);
    expect(first.map((row) => row.id)).toEqual(["sb_old", "sb_mid"]);
  });
});
