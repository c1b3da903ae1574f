import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createSecretBox,
  createSqliteStore,
  type LeaseRepository,
  type Store,
} from "@sandbox-server/db";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../logger";
import { DUTIES_LEASE, DutyLease } from "./duty-lease";
import { SandboxLocks } from "./sandbox-locks";

/*
 * Two replicas' lease machinery over one store (a real SQLite file; the lease semantics are the
 * store port's, tested on PostgreSQL too in packages/db's contract tests). The SIGKILL of a real
 * replica is apps/server's replica suite.
 */
describe("leases between replicas", () => {
  let dir: string;
  let store: Store;
  // The leases' clock: a lease expires only when a test moves it.
  let clock = 1_800_000_000_000;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "core-replicas-"));
    store = createSqliteStore(path.join(dir, "store.db"), {
      secretBox: createSecretBox(randomBytes(32)),
      now: () => clock,
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sharedLocks = (holder: string, leases: LeaseRepository = store.leases) =>
    new SandboxLocks({ shared: { leases, holder, ttlMs: 10_000, renewMs: 1_000 } });

  it("a sandbox lock held by one replica makes another wait, and tryRun pass", async () => {
    const a = sharedLocks("rpl_a");
    // B's tries of the lease, counted: waiting is being refused and trying again.
    const counted = countRefusals(store.leases);
    const b = sharedLocks("rpl_b", counted.leases);
    const order: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let aStarted = () => {};
    const started = new Promise<void>((resolve) => {
      aStarted = resolve;
    });
    const first = a.run("sb_1", async () => {
      order.push("a starts");
      aStarted();
      await held;
      order.push("a ends");
    });
    await started;
    // Positive control: another sandbox's lock is free for B.
    expect(await b.tryRun("sb_2", async () => undefined)).toBe(true);
    expect(await b.tryRun("sb_1", async () => undefined)).toBe(false);
    const second = b.run("sb_1", async () => {
      order.push("b runs");
    });
    // Refused again and again while A holds it (tryRun's refusal was the first).
    await counted.refused(3);
    expect(order).toEqual(["a starts"]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["a starts", "a ends", "b runs"]);
    // Released after each task: nothing left held.
    expect(await store.leases.get("sandbox:sb_1")).toBeUndefined();
  });

  it("runs the duties on one replica; they move when it stops or stops renewing", async () => {
    const running = new Set<string>();
    const lease = (holder: string, ttlMs = 10_000, renewMs = 20, leases = store.leases) =>
      new DutyLease({
        leases,
        holder,
        ttlMs,
        renewMs,
        log: silentLogger,
        gain: async () => {
          running.add(holder);
        },
        lose: async () => {
          running.delete(holder);
        },
      });
    const a = lease("rpl_a");
    const b = lease("rpl_b");
    await a.start();
    await b.start();
    expect([...running]).toEqual(["rpl_a"]);
    expect(a.leading).toBe(true);
    expect(b.leading).toBe(false);
    // A graceful stop hands over at once.
    await a.stop();
    await waitFor(() => running.has("rpl_b"));
    expect([...running]).toEqual(["rpl_b"]);
    expect((await store.leases.get(DUTIES_LEASE))?.holder).toBe("rpl_b");

    // A holder that stops renewing (as a killed one) loses them once its lease expired.
    await b.stop();
    const short = lease("rpl_c", 200, 50);
    await short.start();
    expect(running.has("rpl_c")).toBe(true);
    // Its renewals end, as in a killed process (the lease row stays until it expires).
    clearInterval((short as unknown as { timer: NodeJS.Timeout }).timer);
    const counted = countRefusals(store.leases);
    const d = lease("rpl_d", 200, 50, counted.leases);
    await d.start();
    expect(running.has("rpl_d")).toBe(false);
    // Still live one millisecond before it expires: D's renewals keep being refused.
    clock += 199;
    await counted.refused(counted.count() + 2);
    expect(running.has("rpl_d")).toBe(false);
    clock += 1;
    await waitFor(() => running.has("rpl_d"));
    expect((await store.leases.get(DUTIES_LEASE))?.holder).toBe("rpl_d");
    await d.stop();
  });
});

/** A lease repository that counts the refusals of `acquire`; `refused(n)` waits for the n-th. */
function countRefusals(leases: LeaseRepository) {
  let refusals = 0;
  const events = new EventTarget();
  return {
    leases: {
      ...leases,
      async acquire(name: string, holder: string, ttlMs: number) {
        const taken = await leases.acquire(name, holder, ttlMs);
        if (!taken) {
          refusals += 1;
          events.dispatchEvent(new Event("refused"));
        }
        return taken;
      },
    } satisfies LeaseRepository,
    count: () => refusals,
    refused: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (refusals < count) return;
          events.removeEventListener("refused", check);
          resolve();
        };
        events.addEventListener("refused", check);
        check();
      }),
  };
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  await expect.poll(check, { timeout: timeoutMs, interval: 10 }).toBe(true);
}
