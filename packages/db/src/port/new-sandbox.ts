import { NO_PORT_ACCESS } from "../schema";
import type { NewSandbox, SandboxRow } from "./rows";

/**
 * No lifetime policy, no active time counted yet: what a sandbox row has unless told otherwise.
 * Its keys are the lifetime columns (`SandboxLifetimeFields`).
 */
export const NO_LIFETIME = {
  activeLimitMs: null,
  onTimeout: null,
  idlePauseAfterMs: null,
  deletePausedAfterMs: null,
  activeMs: 0,
  runningSince: null,
  pausedAt: null,
  lifetimeDueAt: null,
} satisfies Partial<SandboxRow>;

/** The full row an insert writes (and answers). */
export function completeSandbox(row: NewSandbox): SandboxRow {
  return { ...NO_LIFETIME, portAccess: NO_PORT_ACCESS, ...row };
}
