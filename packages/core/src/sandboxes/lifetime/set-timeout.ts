import type { SandboxRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";
import { findOwnedSandbox, illegalMove, updateSandbox } from "../service/status";
import {
  activeTimeMs,
  durationIssue,
  type LifetimeConfig,
  lifetimeDueAt,
  lifetimeInvalid,
} from "./policy";

/**
 * Sets the sandbox's timeout to `timeoutS` of active time from now (longer or shorter than
 * before); `on_timeout` stays as it was (the server's default if it had no timeout). A PAUSED
 * sandbox's clock starts again when it is resumed. Under the sandbox's lock, so it never races a
 * pause, resume or delete, nor the sweep.
 */
export async function setSandboxTimeout(
  deps: Pick<
    CoreDeps,
    "events" | "locks" | "log" | "now" | "portUrls" | "repos" | "transaction"
  > & { config: Pick<CoreConfig, "defaultOnTimeout"> & LifetimeConfig },
  ownerId: string,
  id: string,
  timeoutS: number,
): Promise<SandboxRow> {
  const issue = durationIssue(deps.config, "timeout_s", timeoutS);
  if (issue) throw lifetimeInvalid([issue]);
  await findOwnedSandbox(deps, ownerId, id);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (row.status === "STOPPING") throw illegalMove(row, "set the timeout of");
    const moved = await updateSandbox(deps, id, async (before) => {
      const now = deps.now();
      const after = {
        ...before,
        activeLimitMs: activeTimeMs(before, now) + timeoutS * 1000,
        onTimeout: before.onTimeout ?? deps.config.defaultOnTimeout,
      };
      return {
        activeLimitMs: after.activeLimitMs,
        onTimeout: after.onTimeout,
        lifetimeDueAt: lifetimeDueAt(after),
      };
    });
    return moved ?? row;
  });
}
