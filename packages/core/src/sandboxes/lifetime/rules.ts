import { deletesAt, earliest, expiresAt, type LifetimeView, lifetimeDueAt } from "./policy";

/** What the sweep does with a sandbox whose due time came. */
export type LifetimeStep =
  | { kind: "pause" | "delete"; rule: "timeout" | "idle" | "retention"; detail: string }
  /** No rule fires yet: look again at `dueAt` (null: not until the row moves), activity as known. */
  | { kind: "later"; dueAt: number | null; lastActivityAt: number | null };

const SETTLED = new Set(["RUNNING", "PAUSED", "ERROR"]);

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * The rule that fires for `row` at `now`, given the last activity known beyond the row (a message
 * forwarded, an event followed, proxied traffic: `lastActivity`) and whether an agent of the
 * sandbox is running (which is activity right now). The timeout comes first, then idleness, then
 * the retention of a PAUSED sandbox.
 */
export function lifetimeStep(
  row: LifetimeView,
  now: number,
  activity: { lastActivity: number | null; agentRunning: boolean },
): LifetimeStep {
  // Starting or stopping: the move out of it sets the due time again.
  if (!SETTLED.has(row.status))
    return { kind: "later", dueAt: null, lastActivityAt: row.lastActivityAt };
  const expiry = expiresAt(row);
  const expired = expiry !== null && expiry <= now && row.status !== "PAUSED";
  if (expired && row.onTimeout === "delete") {
    return {
      kind: "delete",
      rule: "timeout",
      detail: "deleted: timeout_s reached (on_timeout delete)",
    };
  }
  if (expired && row.status === "RUNNING") {
    return {
      kind: "pause",
      rule: "timeout",
      detail: "paused: timeout_s reached (on_timeout pause)",
    };
  }
  const retention = deletesAt(row);
  if (retention !== null && retention <= now && row.deletePausedAfterMs !== null) {
    return {
      kind: "delete",
      rule: "retention",
      detail: `deleted: paused for ${seconds(row.deletePausedAfterMs)} (delete_paused_after_s)`,
    };
  }
  if (row.status === "RUNNING" && row.idlePauseAfterMs !== null) {
    const last = activity.agentRunning
      ? now
      : Math.max(activity.lastActivity ?? 0, row.lastActivityAt ?? 0, row.runningSince ?? 0);
    if (now - last >= row.idlePauseAfterMs) {
      return {
        kind: "pause",
        rule: "idle",
        detail: `paused: idle for ${seconds(row.idlePauseAfterMs)} (idle_pause_after_s)`,
      };
    }
    return {
      kind: "later",
      dueAt: earliest(expiry, last + row.idlePauseAfterMs),
      lastActivityAt: last,
    };
  }
  return { kind: "later", dueAt: lifetimeDueAt(row), lastActivityAt: row.lastActivityAt };
}
