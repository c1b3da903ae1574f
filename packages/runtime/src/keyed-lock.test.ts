import { describe, expect, it } from "vitest";
import { KeyedLock } from "./keyed-lock";

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("KeyedLock", () => {
  it("runs tasks of one key one after another, in order", async () => {
    const lock = new KeyedLock();
    const first = gate();
    const order: string[] = [];
    const a = lock.run("k", async () => {
      order.push("a:start");
      await first.promise;
      order.push("a:end");
    });
    const b = lock.run("k", async () => {
      order.push("b");
    });
    await Promise.resolve();
    expect(order).toEqual(["a:start"]);
    first.open();
    await Promise.all([a, b]);
    expect(order).toEqual(["a:start", "a:end", "b"]);
  });

  it("lets different keys proceed while one key waits", async () => {
    const lock = new KeyedLock();
    const blocked = gate();
    const slow = lock.run("one", () => blocked.promise);
    await expect(lock.run("two", async () => "done")).resolves.toBe("done");
    blocked.open();
    await slow;
  });

  it("runs the next task after one that failed, and passes the failure to its caller", async () => {
    const lock = new KeyedLock();
    const failed = lock.run("k", async () => {
      throw new Error("boom");
    });
    const next = lock.run("k", async () => 42);
    await expect(failed).rejects.toThrow("boom");
    await expect(next).resolves.toBe(42);
  });
});
