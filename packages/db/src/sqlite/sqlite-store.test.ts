import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { completeSandbox } from "../port/new-sandbox";
import type { SandboxRow } from "../port/rows";
import { type Store, StoreBusyError } from "../port/store";
import type { Repositories } from "../repositories";
import { createSecretBox } from "../secrets/secret-box";
import { createSqliteStore } from "./sqlite-store";

const holdWriteLock = fileURLToPath(new URL("./test/hold-write-lock.mjs", import.meta.url));

let dir: string;
let file: string;
const stores: Store[] = [];
const key = randomBytes(32);

function open(target = file, busyRetryMs = 2_000): Store {
  const store = createSqliteStore(target, {
    busyRetryMs,
    secretBox: createSecretBox(key),
  });
  stores.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "store-test-"));
  file = path.join(dir, "store.db");
});

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

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

async function withUser(store: Store): Promise<Store> {
  await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
  return store;
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

describe("transactions", () => {
  it("commit when the work resolves and roll back when it rejects", async () => {
    const store = await withUser(open());
    await store.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox("sb_kept"));
    });
    await expect(
      store.transaction(async (tx) => {
        await tx.sandboxes.insert(sandbox("sb_dropped"));
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await store.sandboxes.get("sb_kept")).toBeDefined();
    expect(await store.sandboxes.get("sb_dropped")).toBeUndefined();
  });

  it("hide uncommitted rows from reads outside, which answer meanwhile (file, WAL)", async () => {
    const store = await withUser(open());
    const hold = gate();
    const inserted = gate();
    const tx = store.transaction(async (t) => {
      await t.sandboxes.insert(sandbox("sb_tx"));
      expect(await t.sandboxes.get("sb_tx")).toBeDefined();
      inserted.open();
      await hold.opened;
    });
    await inserted.opened;
    // The transaction is open: a read outside answers now, from the last committed state.
    expect(await store.sandboxes.get("sb_tx")).toBeUndefined();
    hold.open();
    await tx;
    expect(await store.sandboxes.get("sb_tx")).toBeDefined();
  });

  it("make writes outside wait until they end, also when they roll back", async () => {
    for (const target of [file, ":memory:"]) {
      const store = await withUser(open(target));
      const order: string[] = [];
      const hold = gate();
      const inserted = gate();
      const tx = store
        .transaction(async (t) => {
          await t.sandboxes.insert(sandbox("sb_tx"));
          inserted.open();
          await hold.opened;
          order.push("tx ends");
          throw new Error("rolled back");
        })
        .catch(() => undefined);
      await inserted.opened;
      const outside = store.sandboxes.insert(sandbox("sb_outside")).then(() => {
        order.push("outside write done");
      });
      // Give the outside write every chance to run early.
      await new Promise((resolve) => setImmediate(resolve));
      expect(order).toEqual([]);
      hold.open();
      await Promise.all([tx, outside]);
      expect(order).toEqual(["tx ends", "outside write done"]);
      // The rollback took only the transaction's row, not the write that waited for it.
      expect(await store.sandboxes.get("sb_tx")).toBeUndefined();
      expect(await store.sandboxes.get("sb_outside")).toBeDefined();
    }
  });

  it("refuse a handle used after its transaction ended", async () => {
    const store = await withUser(open(":memory:"));
    let leaked: Repositories | undefined;
    await store.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.sandboxes.insert(sandbox("sb_late"))).rejects.toThrow(/has ended/);
    expect(await store.sandboxes.get("sb_late")).toBeUndefined();
  });
});

describe("checkpoints", () => {
  it("copy committed writes into the database file from a worker, and close leaves no log", async () => {
    const store = open();
    const marker = `checkpoint-marker-${randomBytes(6).toString("hex")}`;
    await store.users.insert({ id: "usr_m", name: marker, isAdmin: false, createdAt: 1 });
    // Committed means in the log at once; the worker copies it into the file soon after.
    const bytes = (f: string) => (existsSync(f) ? readFileSync(f).toString("latin1") : "");
    expect(bytes(`${file}-wal`) + bytes(file)).toContain(marker);
    await expect.poll(() => bytes(file), { timeout: 10_000 }).toContain(marker);

    // The worker's connection closes before the write connection, which, closing last, removes
    // the log: nothing of the store is left open.
    await store.close();
    stores.splice(stores.indexOf(store), 1);
    expect(existsSync(`${file}-wal`)).toBe(false);
    const reopened = open();
    expect((await reopened.users.get("usr_m"))?.name).toBe(marker);
  });
});

describe("an attached store (another thread's connection to the same file)", () => {
  it("reads and writes what the first store does, and opens no file of its own", async () => {
    const key = randomBytes(32);
    const first = createSqliteStore(file, { secretBox: createSecretBox(key) });
    stores.push(first);
    await withUser(first);
    const attached = createSqliteStore(file, { secretBox: createSecretBox(key), attach: true });
    stores.push(attached);
    await first.sandboxes.insert(sandbox("sb_first"));
    await attached.transaction((tx) => tx.sandboxes.insert(sandbox("sb_attached")));
    // Secrets sealed by one open with the other (the same key).
    expect((await attached.sandboxes.get("sb_first"))?.sessionApiKey).toBe("k");
    expect(await first.sandboxes.get("sb_attached")).toBeDefined();
    // It never creates (nor migrates) a database: a missing file is an error.
    expect(() =>
      createSqliteStore(path.join(dir, "missing.db"), {
        secretBox: createSecretBox(key),
        attach: true,
      }),
    ).toThrow();
    expect(existsSync(path.join(dir, "missing.db"))).toBe(false);
  });
});

describe("a limit checked by count + insert", () => {
  /** One create as the control plane makes it: count the active rows, then insert one. */
  async function create(repos: Repositories) {
    const active = await repos.sandboxes.countByStatus(ACTIVE);
    // Whatever the adapter does between two awaits, other creates may run here.
    await new Promise((resolve) => setImmediate(resolve));
    if (active >= LIMIT) throw new LimitReached();
    await repos.sandboxes.insert(sandbox(`sb_${crypto.randomUUID()}`));
  }

  it("overshoots without a transaction (the probe can see an overshoot)", async () => {
    const store = await withUser(open());
    await Promise.allSettled(Array.from({ length: 20 }, () => create(store)));
    expect(await store.sandboxes.countByStatus(ACTIVE)).toBeGreaterThan(LIMIT);
  });

  it("never passes the limit under many concurrent creates in transactions", async () => {
    for (const target of [file, ":memory:"]) {
      const store = await withUser(open(target));
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
    }
  });
});

describe("a database locked by another process", () => {
  let holder: ChildProcess | null = null;

  afterEach(async () => {
    if (holder && holder.exitCode === null && holder.signalCode === null) {
      const exited = once(holder, "exit");
      holder.kill("SIGKILL");
      await exited;
    }
    holder = null;
  });

  async function lockFromAnotherProcess(): Promise<() => Promise<void>> {
    const child = spawn(process.execPath, [holdWriteLock, file], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    holder = child;
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    expect(line.toString()).toContain("locked");
    return async () => {
      const exited = once(child, "exit");
      child.stdin?.end("let go\n");
      await exited;
    };
  }

  it("a write blocks the whole event loop when SQLite waits for the lock itself", async () => {
    await withUser(open());
    const letGo = await lockFromAnotherProcess();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      // The old setup: a long busy_timeout, waited for inside SQLite, synchronously.
      const raw = new Database(file);
      raw.pragma("busy_timeout = 300");
      const before = ticks;
      expect(() => raw.exec("BEGIN IMMEDIATE")).toThrow(/locked|busy/i);
      expect(ticks).toBe(before);
      raw.close();
    } finally {
      clearInterval(timer);
      await letGo();
    }
  });

  it("keeps reads answering and the loop turning, and fails writes with StoreBusyError", async () => {
    const store = await withUser(open(file, 1_500));
    await store.sandboxes.insert(sandbox("sb_before"));
    const letGo = await lockFromAnotherProcess();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      // WAL: reads are not blocked by another process's writer.
      expect(await store.sandboxes.get("sb_before")).toBeDefined();
      expect(await store.sandboxes.countByStatus(ACTIVE)).toBe(1);

      let settled = false;
      const write = store.sandboxes.insert(sandbox("sb_during")).finally(() => {
        settled = true;
      });
      const transaction = store.transaction(async (tx) => {
        await tx.sandboxes.insert(sandbox("sb_in_tx"));
      });
      write.catch(() => undefined);
      transaction.catch(() => undefined);
      // While the write waits for the lock, timers keep firing and reads keep answering.
      const ticksAtStart = ticks;
      await expect.poll(() => ticks - ticksAtStart, { interval: 5 }).toBeGreaterThanOrEqual(10);
      expect(await store.sandboxes.get("sb_before")).toBeDefined();
      expect(settled).toBe(false);

      await expect(write).rejects.toBeInstanceOf(StoreBusyError);
      await expect(write).rejects.toMatchObject({ name: "StoreBusyError" });
      await expect(transaction).rejects.toBeInstanceOf(StoreBusyError);
    } finally {
      clearInterval(timer);
      await letGo();
    }
    // Once the other process lets go, the same write and transaction succeed.
    await store.sandboxes.insert(sandbox("sb_during"));
    await store.transaction(async (tx) => {
      await tx.sandboxes.insert(sandbox("sb_in_tx"));
    });
    expect(await store.sandboxes.countByStatus(ACTIVE)).toBe(3);
  });

  it("retries a write that finds the lock taken and succeeds when it is released in time", async () => {
    const store = await withUser(open(file, 10_000));
    const letGo = await lockFromAnotherProcess();
    const write = store.sandboxes.insert(sandbox("sb_waits"));
    // It is retrying (not failed): reads still answer and do not see it yet.
    expect(await store.sandboxes.get("sb_waits")).toBeUndefined();
    await letGo();
    await write;
    expect(await store.sandboxes.get("sb_waits")).toBeDefined();
  });
});
