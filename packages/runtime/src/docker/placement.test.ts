import { describe, expect, it } from "vitest";
import { chooseHost, defaultMaxSandboxes, type HostLoad } from "./placement";

const GIB = 1024 ** 3;
const load = (name: string, sandboxes: number, memoryGib: number, max = 10): HostLoad => ({
  name,
  sandboxes,
  maxSandboxes: max,
  memoryBytes: memoryGib * GIB,
  memoryTotalBytes: 16 * GIB,
});

describe("chooseHost", () => {
  it("takes the host with the most free capacity, the first listed on a tie", () => {
    expect(chooseHost([load("a", 0, 0), load("b", 0, 0)], GIB)).toEqual({ host: "a" });
    expect(chooseHost([load("a", 1, 1), load("b", 0, 0)], GIB)).toEqual({ host: "b" });
  });

  it("weighs memory as well as sandbox slots", () => {
    // a has fewer sandboxes but they hold most of its memory.
    expect(chooseHost([load("a", 1, 12), load("b", 3, 3)], GIB)).toEqual({ host: "b" });
  });

  it("never picks a host the sandbox does not fit on, and says why when none has room", () => {
    expect(chooseHost([load("a", 10, 0), load("b", 9, 15.5)], GIB)).toEqual({
      host: null,
      why: expect.stringContaining("a (10/10 sandboxes"),
    });
    expect(chooseHost([], GIB)).toEqual({ host: null, why: "no Docker host answers" });
  });

  it("defaults to one sandbox per 512 MiB", () => {
    expect(defaultMaxSandboxes(16 * GIB)).toBe(32);
    expect(defaultMaxSandboxes(100)).toBe(1);
  });
});
