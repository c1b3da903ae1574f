import { NO_LIFETIME } from "@sandbox-server/db";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../create-core";
import { AppError } from "../../errors";
import {
  activeTimeMs,
  expiresAt,
  initialLifetime,
  type LifetimeView,
  lifetimeDueAt,
  lifetimeOnMove,
  resolveLifetime,
} from "./policy";
import { lifetimeStep } from "./rules";

const S = 1000;
const quiet = { lastActivity: null, agentRunning: false };

function row(extra: Partial<LifetimeView>): LifetimeView {
  return { ...NO_LIFETIME, status: "RUNNING", lastActivityAt: null, ...extra };
}

/** A sandbox created at 0 under `policy`, then moved through `moves` ([status, at]). */
function lived(
  policy: Partial<Parameters<typeof initialLifetime>[0]>,
  moves: [string, number][] = [["RUNNING", 0]],
): LifetimeView {
  let current = row({
    status: "STARTING",
    ...initialLifetime(
      {
        timeoutMs: null,
        onTimeout: "pause",
        idlePauseAfterMs: null,
        deletePausedAfterMs: null,
        ...policy,
      },
      0,
    ),
  });
  for (const [status, at] of moves)
    current = { ...current, ...lifetimeOnMove(current, status, at), status };
  return current;
}

describe("lifetime policy", () => {
  it("takes each field from the create, else the spec, else the operator", () => {
    const config = { ...defaultConfig, idleAutoPauseMs: 300 * S, defaultTimeoutMs: 3600 * S };
    expect(resolveLifetime(config, null, {})).toEqual({
      timeoutMs: 3600 * S,
      onTimeout: "pause",
      idlePauseAfterMs: 300 * S,
      deletePausedAfterMs: null,
    });
    expect(
      resolveLifetime(
        config,
        { timeout_s: 60, on_timeout: "delete", delete_paused_after_s: 86_400 },
        { timeout_s: 30 },
      ),
    ).toEqual({
      timeoutMs: 30 * S,
      onTimeout: "delete",
      idlePauseAfterMs: 300 * S,
      deletePausedAfterMs: 86_400 * S,
    });
  });

  it("refuses durations past the operator's maximum with an issue per field", () => {
    const config = { ...defaultConfig, maxTimeoutMs: 100 * S, maxDeletePausedAfterMs: 10 * S };
    expect(resolveLifetime(config, null, { timeout_s: 100 }).timeoutMs).toBe(100 * S);
    let error: unknown;
    try {
      resolveLifetime(config, { delete_paused_after_s: 11 }, { timeout_s: 101 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("VALIDATION_FAILED");
    expect((error as AppError).issues?.map((i) => i.path)).toEqual([
      ["timeout_s"],
      ["delete_paused_after_s"],
    ]);
  });

  it("counts active time only outside PAUSED, and moves the expiry by the paused time", () => {
    const sandbox = lived({ timeoutMs: 100 * S }, [
      ["RUNNING", 1 * S],
      ["PAUSED", 40 * S],
      ["STARTING", 1000 * S],
      ["RUNNING", 1001 * S],
    ]);
    expect(activeTimeMs(sandbox, 1011 * S)).toBe(51 * S);
    // 40 s before the pause, 60 s left after it.
    expect(expiresAt(sandbox)).toBe(1060 * S);
    const paused = lived({ timeoutMs: 100 * S }, [
      ["RUNNING", 0],
      ["PAUSED", 40 * S],
    ]);
    expect(expiresAt(paused)).toBeNull();
    expect(activeTimeMs(paused, 5000 * S)).toBe(40 * S);
  });
});

describe("lifetime rules", () => {
  it("pauses or deletes at the timeout, as on_timeout says", () => {
    const pausing = lived({ timeoutMs: 60 * S });
    expect(lifetimeDueAt(pausing)).toBe(60 * S);
    expect(lifetimeStep(pausing, 59 * S, quiet).kind).toBe("later");
    expect(lifetimeStep(pausing, 60 * S, quiet)).toEqual({
      kind: "pause",
      rule: "timeout",
      detail: "paused: timeout_s reached (on_timeout pause)",
    });
    const deleting = lived({ timeoutMs: 60 * S, onTimeout: "delete" });
    expect(lifetimeStep(deleting, 60 * S, quiet)).toEqual({
      kind: "delete",
      rule: "timeout",
      detail: "deleted: timeout_s reached (on_timeout delete)",
    });
    // An ERROR sandbox cannot be paused; it is deleted only when on_timeout says delete.
    expect(lifetimeDueAt({ ...pausing, status: "ERROR" })).toBeNull();
    expect(lifetimeStep({ ...deleting, status: "ERROR" }, 60 * S, quiet).kind).toBe("delete");
  });

  it("pauses when idle, and counts messages, events and a running agent as activity", () => {
    const idle = lived({ idlePauseAfterMs: 300 * S }, [["RUNNING", 10 * S]]);
    expect(lifetimeDueAt(idle)).toBe(310 * S);
    expect(lifetimeStep(idle, 310 * S, quiet)).toEqual({
      kind: "pause",
      rule: "idle",
      detail: "paused: idle for 300 s (idle_pause_after_s)",
    });
    expect(lifetimeStep(idle, 310 * S, { lastActivity: 100 * S, agentRunning: false })).toEqual({
      kind: "later",
      dueAt: 400 * S,
      lastActivityAt: 100 * S,
    });
    expect(lifetimeStep(idle, 5000 * S, { lastActivity: null, agentRunning: true })).toEqual({
      kind: "later",
      dueAt: 5300 * S,
      lastActivityAt: 5000 * S,
    });
  });

  it("deletes a PAUSED sandbox after its retention, never a running one", () => {
    const paused = lived({ deletePausedAfterMs: 86_400 * S, idlePauseAfterMs: 60 * S }, [
      ["RUNNING", 0],
      ["PAUSED", 100 * S],
    ]);
    expect(lifetimeDueAt(paused)).toBe(86_500 * S);
    expect(lifetimeStep(paused, 86_499 * S, quiet).kind).toBe("later");
    expect(lifetimeStep(paused, 86_500 * S, quiet)).toEqual({
      kind: "delete",
      rule: "retention",
      detail: "deleted: paused for 86400 s (delete_paused_after_s)",
    });
    const resumed = {
      ...paused,
      ...lifetimeOnMove(paused, "STARTING", 200 * S),
      status: "STARTING",
    };
    expect(resumed.pausedAt).toBeNull();
    expect(lifetimeDueAt(resumed)).toBeNull();
    expect(lifetimeStep(resumed, 90_000 * S, quiet).kind).toBe("later");
  });
});
