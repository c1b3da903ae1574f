import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../logger";
import type { UsableNetns } from "./detect-netns";
import { NetnsPool } from "./netns-pool";

// Only `close` uses them, on names that were never made: its removal finds nothing to remove.
const tools: UsableNetns = { usable: true, ip: "ip", nft: "nft", nsenter: "nsenter", pasta: "" };

/** A pool whose namespaces are names only: what it makes, and when, is the subject here. */
function poolMaking() {
  const made: string[] = [];
  let waiter: { count: number; resolve: () => void } | null = null;
  const pool = new NetnsPool(
    tools,
    `/tmp/netns-pool-test-${process.pid}`,
    silentLogger,
    async (name) => {
      made.push(name);
      if (waiter && made.length >= waiter.count) waiter.resolve();
      return null;
    },
  );
  /** Once `count` are made and the pool has taken the last in (an immediate runs after it). */
  const madeCount = async (count: number) => {
    if (made.length < count) {
      await new Promise<void>((resolve) => {
        waiter = { count, resolve };
      });
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { pool, made, madeCount };
}

describe("NetnsPool", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps four ready, refills after a delay, and at once when a take empties it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { pool, made, madeCount } = poolMaking();
    pool.fill();
    await madeCount(4);
    const taken = [pool.take(), pool.take(), pool.take()];
    expect(taken.map((t) => t?.name)).toEqual(made.slice(0, 3));
    // Three takes in a row: the refill waits (its timer has not run).
    await new Promise((resolve) => setImmediate(resolve));
    expect(made).toHaveLength(4);
    // The fourth leaves none ready: the next create must not make its own.
    expect(pool.take()?.name).toBe(made[3]);
    await madeCount(8);
    expect(made).toHaveLength(8);
    await pool.close();
  });

  it("refills after the delay when takes leave some ready", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { pool, made, madeCount } = poolMaking();
    pool.fill();
    await madeCount(4);
    pool.take();
    await vi.advanceTimersByTimeAsync(499);
    expect(made).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1);
    await madeCount(5);
    expect(made).toHaveLength(5);
    await pool.close();
  });
});
