import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../logger";
import { SandboxActivity } from "../../state/activity";
import { EgressDenialPuller } from "./egress-denial-pull";

const INTERVAL = 1_000;

describe("EgressDenialPuller", () => {
  let reads: string[];
  let puller: EgressDenialPuller;
  const activity = new SandboxActivity();

  beforeEach(() => {
    vi.useFakeTimers();
    reads = [];
    puller = new EgressDenialPuller(
      async (id) => {
        reads.push(id);
      },
      silentLogger,
      INTERVAL,
    );
    activity.onActive((id) => puller.active(id));
  });

  afterEach(async () => {
    await puller.stop();
    vi.useRealTimers();
  });

  it("reads a sandbox marked active at the next tick and the one after, then stops ticking", async () => {
    activity.set("sb_a", 1);
    activity.set("sb_a", 2);
    activity.set("sb_b", 3);
    expect(reads).toEqual([]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(reads).toEqual(["sb_a", "sb_b"]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(reads).toEqual(["sb_a", "sb_b", "sb_a", "sb_b"]);
    // Nothing happened since: no tick is armed, so nothing more is read however long it stays idle.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(INTERVAL * 10);
    expect(reads).toHaveLength(4);
  });

  it("keeps reading a sandbox while it stays active, and none that are idle", async () => {
    for (let i = 0; i < 3; i++) {
      activity.set("sb_busy", i);
      await vi.advanceTimersByTimeAsync(INTERVAL);
    }
    expect(reads).toEqual(["sb_busy", "sb_busy", "sb_busy"]);
  });

  it("forgets a deleted sandbox, and a failed read does not stop the others", async () => {
    const failing = new EgressDenialPuller(
      async (id) => {
        if (id === "sb_gone") throw new Error("no such namespace");
        reads.push(id);
      },
      silentLogger,
      INTERVAL,
    );
    failing.active("sb_gone");
    failing.active("sb_ok");
    failing.active("sb_deleted");
    failing.forget("sb_deleted");
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(reads).toEqual(["sb_ok"]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(reads).toEqual(["sb_ok", "sb_ok"]);
    // Stopped: activity no longer arms a tick.
    await failing.stop();
    failing.active("sb_ok");
    await vi.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(reads).toEqual(["sb_ok", "sb_ok"]);
  });
});
