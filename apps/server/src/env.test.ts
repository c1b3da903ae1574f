import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error";
import { lifetimeConfig, loadEnv } from "./env";

const lifetimeOf = (vars: Record<string, string>) => lifetimeConfig(loadEnv(vars));

describe("lifetime settings", () => {
  it("leave every rule off by default, within 30 / 30 / 365 days", () => {
    expect(lifetimeOf({})).toEqual({
      defaultTimeoutMs: null,
      defaultOnTimeout: "pause",
      idleAutoPauseMs: null,
      defaultDeletePausedAfterMs: null,
      maxTimeoutMs: 30 * 86_400_000,
      maxIdlePauseAfterMs: 30 * 86_400_000,
      maxDeletePausedAfterMs: 365 * 86_400_000,
    });
  });

  it("take IDLE_AUTO_PAUSE_MINUTES as the default idle pause, SANDBOX_IDLE_PAUSE_AFTER_S first", () => {
    expect(lifetimeOf({ IDLE_AUTO_PAUSE_MINUTES: "5" }).idleAutoPauseMs).toBe(300_000);
    expect(lifetimeOf({ IDLE_AUTO_PAUSE_MINUTES: "0.5" }).idleAutoPauseMs).toBe(30_000);
    expect(
      lifetimeOf({ IDLE_AUTO_PAUSE_MINUTES: "5", SANDBOX_IDLE_PAUSE_AFTER_S: "42" })
        .idleAutoPauseMs,
    ).toBe(42_000);
    expect(
      lifetimeOf({
        SANDBOX_TIMEOUT_S: "3600",
        SANDBOX_ON_TIMEOUT: "delete",
        SANDBOX_DELETE_PAUSED_AFTER_S: "86400",
      }),
    ).toMatchObject({
      defaultTimeoutMs: 3_600_000,
      defaultOnTimeout: "delete",
      defaultDeletePausedAfterMs: 86_400_000,
    });
  });

  it("refuse a default above its maximum, and values that are not whole seconds", () => {
    expect(() => lifetimeOf({ SANDBOX_TIMEOUT_S: "61", SANDBOX_MAX_TIMEOUT_S: "60" })).toThrow(
      ConfigError,
    );
    expect(() => lifetimeOf({ SANDBOX_TIMEOUT_S: "61", SANDBOX_MAX_TIMEOUT_S: "60" })).toThrow(
      /SANDBOX_TIMEOUT_S must be at most SANDBOX_MAX_TIMEOUT_S/,
    );
    expect(() => lifetimeOf({ SANDBOX_TIMEOUT_S: "1.5" })).toThrow(/SANDBOX_TIMEOUT_S/);
    expect(() => lifetimeOf({ SANDBOX_ON_TIMEOUT: "stop" })).toThrow(/SANDBOX_ON_TIMEOUT/);
  });
});

describe("PROCESS_SANDBOX_CPU_WEIGHT", () => {
  it("defaults to 25 and takes a whole cgroup v2 weight, refusing anything else", () => {
    expect(loadEnv({}).PROCESS_SANDBOX_CPU_WEIGHT).toBe(25);
    expect(loadEnv({ PROCESS_SANDBOX_CPU_WEIGHT: "100" }).PROCESS_SANDBOX_CPU_WEIGHT).toBe(100);
    for (const bad of ["0", "10001", "2.5", "quarter"]) {
      expect(() => loadEnv({ PROCESS_SANDBOX_CPU_WEIGHT: bad })).toThrow(
        /PROCESS_SANDBOX_CPU_WEIGHT/,
      );
    }
  });
});
