import { describe, expect, it } from "vitest";
import { FairShare } from "./fair-share";

const d = (ownerId: string, webhookId: string, n: number) => ({ ownerId, webhookId, n });

describe("FairShare", () => {
  it("gives each user at most its share, however old its backlog", () => {
    const share = new FairShare();
    const backlogOfA = Array.from({ length: 10 }, (_, i) => d("a", `a${i}`, i));
    const picked = share.pick([...backlogOfA, d("b", "b0", 10)], 8, 2);
    expect(picked.map((x) => x.n)).toEqual([0, 10, 1]);
    expect(share.ownersAtLimit(2)).toEqual(["a"]);
    // A's slots are held: nothing more for A, whatever is free.
    expect(share.pick(backlogOfA.slice(2), 8, 2)).toEqual([]);
  });

  it("goes round-robin across users, then across a user's webhooks", () => {
    const share = new FairShare();
    const candidates = [
      d("a", "a1", 0),
      d("a", "a1", 1),
      d("a", "a1", 2),
      d("a", "a2", 3),
      d("b", "b1", 4),
      d("c", "c1", 5),
    ];
    expect(share.pick(candidates, 5, 3).map((x) => x.n)).toEqual([0, 4, 5, 3, 1]);
  });

  it("frees a slot on release and then serves the user served longest ago", () => {
    const share = new FairShare();
    const [first] = share.pick([d("a", "a1", 0)], 1, 1);
    share.pick([d("b", "b1", 1)], 1, 1);
    share.release(first!);
    expect(share.ownersAtLimit(1)).toEqual(["b"]);
    share.release({ ownerId: "b", webhookId: "b1" });
    // Both idle now: A was served longer ago than B, so A goes first.
    expect(share.pick([d("b", "b1", 2), d("a", "a1", 3)], 1, 1).map((x) => x.n)).toEqual([3]);
  });
});
