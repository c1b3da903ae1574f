import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { ForwardGate } from "./forward-gate";

describe("ForwardGate", () => {
  it("admits forwards while open and refuses them, with the reason, while a stop runs", async () => {
    const gate = new ForwardGate();
    expect(gate.enter("sb")).toBeNull();
    gate.leave("sb");
    const seen: (string | null)[] = [];
    await gate.whileClosed("sb", "pausing", 1000, async () => {
      seen.push(gate.enter("sb"));
    });
    expect(seen).toEqual(["pausing"]);
    // Open again afterwards; other sandboxes were never affected.
    expect(gate.enter("sb")).toBeNull();
    expect(gate.enter("other")).toBeNull();
  });

  it("runs the stop only once every forward admitted before it has left", async () => {
    const gate = new ForwardGate();
    expect(gate.enter("sb")).toBeNull();
    expect(gate.enter("sb")).toBeNull();
    const order: string[] = [];
    const stop = gate.whileClosed("sb", "pausing", 5000, async () => {
      order.push(`stop with ${gate.inFlight("sb")} in flight`);
    });
    expect(gate.enter("sb")).toBe("pausing");
    order.push("first left");
    gate.leave("sb");
    await Promise.resolve();
    order.push("second left");
    gate.leave("sb");
    await stop;
    expect(order).toEqual(["first left", "second left", "stop with 0 in flight"]);
  });

  it("gives up after its bound without running the stop, and opens again", async () => {
    const gate = new ForwardGate();
    expect(gate.enter("sb")).toBeNull();
    let ran = false;
    const stop = gate.whileClosed("sb", "pausing", 20, async () => {
      ran = true;
    });
    await expect(stop).rejects.toSatisfy(
      (error) => error instanceof AppError && error.code === "SANDBOX_BUSY",
    );
    expect(ran).toBe(false);
    gate.leave("sb");
    expect(gate.enter("sb")).toBeNull();
  });
});
