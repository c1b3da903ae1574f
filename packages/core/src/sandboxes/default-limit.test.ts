import { describe, expect, it } from "vitest";
import { defaultMaxRunningSandboxes } from "./default-limit";

const GIB = 1024 * 1024 * 1024;

describe("defaultMaxRunningSandboxes", () => {
  it("allows one sandbox per 512 MiB of host memory", () => {
    expect(defaultMaxRunningSandboxes(16 * GIB)).toBe(32);
  });

  it("never goes below 4 nor above 64", () => {
    expect(defaultMaxRunningSandboxes(1 * GIB)).toBe(4);
    expect(defaultMaxRunningSandboxes(256 * GIB)).toBe(64);
  });
});
