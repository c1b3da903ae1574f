import type { SandboxRow } from "@sandbox-server/db";
import { z } from "zod";
import { isoOrNull } from "../../shared/time";
import { activeTimeMs, deletesAt, expiresAt, onTimeoutActions } from "./policy";

const seconds = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .describe(
      `${what}, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum)`,
    );

export const OnTimeout = z.enum(onTimeoutActions).meta({ id: "OnTimeout" });

/** The lifetime fields of a create (and of a spec's defaults); absent: the spec's, then the server's. */
export const lifetimeInput = {
  timeout_s: seconds(
    "Active time allowed from now; time spent PAUSED does not count. Extend it with POST /sandboxes/{id}/timeout",
  ).optional(),
  on_timeout: OnTimeout.optional().describe(
    "What happens when `timeout_s` is reached: `pause` (default) or `delete`",
  ),
  idle_pause_after_s: seconds(
    "Pause after this long without activity: no message forwarded, no event from its agent, no proxied traffic; a running agent is activity",
  ).optional(),
  delete_paused_after_s: seconds("Delete the sandbox once it has been PAUSED this long").optional(),
};

export const SandboxLifetime = z
  .object({
    timeout_s: z
      .number()
      .nullable()
      .describe(
        "Active time allowed in all (what has been used plus the last timeout set); null: none",
      ),
    on_timeout: OnTimeout.nullable(),
    idle_pause_after_s: z.number().nullable(),
    delete_paused_after_s: z.number().nullable(),
    delete_at: z
      .string()
      .nullable()
      .describe("While PAUSED with `delete_paused_after_s`: when it will be deleted"),
  })
  .meta({ id: "SandboxLifetime" });

export const SetSandboxTimeoutInput = z.object({
  id: z.string().min(1).max(64).describe("Sandbox id"),
  timeout_s: seconds("Active time allowed from now (extends or shortens the timeout)"),
});

const secondsOrNull = (ms: number | null) => (ms === null ? null : ms / 1000);

/** The lifetime fields of a sandbox as the API shows them, at `now`. */
export function toLifetimeFields(row: SandboxRow, now: number) {
  const limit = row.activeLimitMs;
  return {
    expires_at: row.status === "PAUSED" ? null : isoOrNull(expiresAt(row)),
    active_time_s: Math.floor(activeTimeMs(row, now) / 1000),
    lifetime: {
      timeout_s: secondsOrNull(limit),
      on_timeout: limit === null ? null : ((row.onTimeout ?? "pause") as "pause" | "delete"),
      idle_pause_after_s: secondsOrNull(row.idlePauseAfterMs),
      delete_paused_after_s: secondsOrNull(row.deletePausedAfterMs),
      delete_at: isoOrNull(deletesAt(row)),
    },
  };
}
