import { describe, expect, it } from "vitest";
import { type HostHealth, nextHealth } from "./host-health";

const options = { timeoutMs: 1000, downAfterFailures: 2 };

describe("nextHealth", () => {
  it("goes down after failures in a row, dated from the first, and up at the first answer", () => {
    let health: HostHealth = nextHealth({ state: "unknown" }, null, 0, options);
    expect(health.state).toBe("up");
    health = nextHealth(health, "ECONNREFUSED", 10, options);
    expect(health.state).toBe("up");
    health = nextHealth(health, "ECONNREFUSED", 20, options);
    expect(health).toEqual({ state: "down", since: 10, reason: "ECONNREFUSED" });
    expect(nextHealth(health, "still", 30, options)).toBe(health);
    expect(nextHealth(health, null, 40, options).state).toBe("up");
  });

  it("forgives a single lost ping", () => {
    const up = nextHealth({ state: "unknown" }, null, 0, options);
    const once = nextHealth(up, "timeout", 5, options);
    expect(nextHealth(once, null, 10, options)).toEqual({
      state: "up",
      failures: 0,
      firstFailureAt: null,
      lastError: null,
    });
  });

  it("keeps a host never seen up off the list at its first failure", () => {
    expect(nextHealth({ state: "unknown" }, "EHOSTUNREACH", 7, options)).toEqual({
      state: "down",
      since: 7,
      reason: "EHOSTUNREACH",
    });
  });
});
