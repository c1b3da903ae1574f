import type { SandboxLifetime, SandboxRow, SpecLifetime } from "@sandbox-server/db";
import type { CoreConfig } from "../../deps";
import { AppError, type ErrorIssue } from "../../errors";

export const onTimeoutActions = ["pause", "delete"] as const;
export type OnTimeout = (typeof onTimeoutActions)[number];

/** What a create asks for, in seconds as the API spells it; absent: the spec's, then the operator's. */
export interface LifetimeRequest {
  timeout_s?: number | undefined;
  on_timeout?: OnTimeout | undefined;
  idle_pause_after_s?: number | undefined;
  delete_paused_after_s?: number | undefined;
}

/** A sandbox's policy in milliseconds; null: the rule is off. */
export interface LifetimePolicy {
  timeoutMs: number | null;
  onTimeout: OnTimeout;
  idlePauseAfterMs: number | null;
  deletePausedAfterMs: number | null;
}

const SECOND = 1000;

/** The operator's lifetime defaults and maximums. */
export type LifetimeConfig = Pick<
  CoreConfig,
  | "idleAutoPauseMs"
  | "defaultTimeoutMs"
  | "defaultOnTimeout"
  | "defaultDeletePausedAfterMs"
  | "maxTimeoutMs"
  | "maxIdlePauseAfterMs"
  | "maxDeletePausedAfterMs"
>;

/**
 * The policy of a new sandbox: each field from the request, else the spec, else the operator's
 * default. Durations are whole seconds from 1 to the operator's maximum; past it → 422 naming the
 * field (a spec's default is held to the same maximum, so a spec cannot widen it).
 */
export function resolveLifetime(
  config: LifetimeConfig,
  spec: SpecLifetime | null,
  request: LifetimeRequest,
): LifetimePolicy {
  const pick = <K extends keyof LifetimeRequest>(key: K) => request[key] ?? spec?.[key];
  const issues: ErrorIssue[] = [];
  const duration = (key: DurationField, fallbackMs: number | null): number | null => {
    const seconds = pick(key);
    if (seconds === undefined) return fallbackMs;
    const issue = durationIssue(config, key, seconds);
    if (issue) issues.push(issue);
    return seconds * SECOND;
  };
  const policy: LifetimePolicy = {
    timeoutMs: duration("timeout_s", config.defaultTimeoutMs),
    onTimeout: pick("on_timeout") ?? config.defaultOnTimeout,
    idlePauseAfterMs: duration("idle_pause_after_s", config.idleAutoPauseMs),
    deletePausedAfterMs: duration("delete_paused_after_s", config.defaultDeletePausedAfterMs),
  };
  if (issues.length > 0) throw lifetimeInvalid(issues);
  return policy;
}

type DurationField = "timeout_s" | "idle_pause_after_s" | "delete_paused_after_s";

/** The operator's maximum of each duration, in seconds. */
export function maximumSeconds(config: LifetimeConfig, field: DurationField): number {
  const ms = {
    timeout_s: config.maxTimeoutMs,
    idle_pause_after_s: config.maxIdlePauseAfterMs,
    delete_paused_after_s: config.maxDeletePausedAfterMs,
  }[field];
  return Math.floor(ms / SECOND);
}

/** The issue of a duration out of bounds (1 … the operator's maximum), or null. */
export function durationIssue(
  config: LifetimeConfig,
  field: DurationField,
  seconds: number,
): ErrorIssue | null {
  const max = maximumSeconds(config, field);
  if (Number.isInteger(seconds) && seconds >= 1 && seconds <= max) return null;
  return {
    path: [field],
    code: "too_big",
    message: `must be a whole number of seconds from 1 to ${max} (this server's maximum)`,
  };
}

export function lifetimeInvalid(issues: ErrorIssue[]): AppError {
  return new AppError("VALIDATION_FAILED", "Input validation failed", { issues });
}

/** The columns of a sandbox that starts now under `policy`: no active time yet, counting from now. */
export function initialLifetime(policy: LifetimePolicy, now: number): SandboxLifetime {
  const fields = {
    activeLimitMs: policy.timeoutMs,
    onTimeout: policy.onTimeout,
    idlePauseAfterMs: policy.idlePauseAfterMs,
    deletePausedAfterMs: policy.deletePausedAfterMs,
    activeMs: 0,
    runningSince: now,
    pausedAt: null,
  };
  return { ...fields, lifetimeDueAt: null };
}

/** What the rules read of a sandbox. */
export type LifetimeView = SandboxLifetime & Pick<SandboxRow, "status" | "lastActivityAt">;

/** Active time so far: what was accumulated, plus the current stretch unless PAUSED. */
export function activeTimeMs(row: SandboxLifetime, now: number): number {
  return row.activeMs + (row.runningSince === null ? 0 : Math.max(0, now - row.runningSince));
}

/** When the active time reaches the limit, while it runs; null while PAUSED or without a timeout. */
export function expiresAt(row: SandboxLifetime): number | null {
  if (row.activeLimitMs === null || row.runningSince === null) return null;
  return row.runningSince + Math.max(0, row.activeLimitMs - row.activeMs);
}

/** When a PAUSED sandbox is deleted; null when it is not PAUSED or is kept. */
export function deletesAt(row: LifetimeView): number | null {
  if (row.status !== "PAUSED" || row.pausedAt === null || row.deletePausedAfterMs === null)
    return null;
  return row.pausedAt + row.deletePausedAfterMs;
}

/** When a RUNNING sandbox is idle enough to pause, by the activity the row knows of. */
export function idleDueAt(row: LifetimeView): number | null {
  if (row.status !== "RUNNING" || row.idlePauseAfterMs === null) return null;
  const last = Math.max(row.lastActivityAt ?? 0, row.runningSince ?? 0);
  return last + row.idlePauseAfterMs;
}

/**
 * The earliest moment a rule may fire for the row as it is: the sweep's due time. PAUSED: its
 * retention. RUNNING: its expiry or its idle time, whichever comes first. ERROR: only an expiry
 * that deletes (it cannot be paused). STARTING and STOPPING: nothing (the move out of them sets it).
 */
export function lifetimeDueAt(row: LifetimeView): number | null {
  if (row.status === "PAUSED") return deletesAt(row);
  const expiry = expiresAt(row);
  if (row.status === "ERROR") return row.onTimeout === "delete" ? expiry : null;
  if (row.status !== "RUNNING") return null;
  return earliest(expiry, idleDueAt(row));
}

export function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * The lifetime columns a status move changes, given the row before it. Pausing closes the active
 * stretch (its time is added to `activeMs`) and starts the retention clock; leaving PAUSED opens a
 * new stretch; becoming RUNNING is activity. The due time follows the row after the move.
 */
export function lifetimeOnMove(
  before: LifetimeView,
  status: string,
  now: number,
): Partial<SandboxLifetime> & Pick<SandboxRow, "lastActivityAt"> {
  const after: LifetimeView = { ...before, status };
  if (status === "PAUSED" && before.status !== "PAUSED") {
    after.activeMs = activeTimeMs(before, now);
    after.runningSince = null;
    after.pausedAt = now;
  } else if (status !== "PAUSED" && before.status === "PAUSED") {
    after.runningSince = now;
    after.pausedAt = null;
  }
  if (status === "RUNNING") after.lastActivityAt = now;
  return {
    activeMs: after.activeMs,
    runningSince: after.runningSince,
    pausedAt: after.pausedAt,
    lastActivityAt: after.lastActivityAt,
    lifetimeDueAt: lifetimeDueAt(after),
  };
}
