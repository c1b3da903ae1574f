import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { findOwnedSandbox, illegalMove, updateSandbox } from "./status";

/** What pausing a sandbox uses: its lock, the forward gate it drains, the runtime. */
export type PauseSandboxDeps = Pick<
  CoreDeps,
  "events" | "forwards" | "locks" | "log" | "now" | "portUrls" | "repos" | "runtime" | "transaction"
> & { config: Pick<CoreConfig, "agentRequestTimeoutMs"> };

/** RUNNING → PAUSED; pausing a PAUSED sandbox succeeds as is. */
export async function pauseSandbox(
  deps: PauseSandboxDeps,
  ownerId: string,
  id: string,
): Promise<SandboxRow> {
  await findOwnedSandbox(deps, ownerId, id);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (row.status === "PAUSED") return row;
    if (row.status !== "RUNNING") throw illegalMove(row, "pause");
    return (await pauseRunning(deps, id, null)) ?? row;
  });
}

/**
 * Freezes a RUNNING sandbox once no message to it is in flight, and records PAUSED: forwards
 * already admitted finish first, new ones get 409 meanwhile (see ForwardGate). Call it under the
 * sandbox's lock (so does the lifetime sweep).
 */
export function pauseRunning(
  deps: Pick<CoreDeps, "events" | "forwards" | "log" | "now" | "runtime" | "transaction"> & {
    config: Pick<CoreConfig, "agentRequestTimeoutMs">;
  },
  id: string,
  statusDetail: string | null,
): Promise<SandboxRow | undefined> {
  return deps.forwards.whileClosed(id, "pausing", drainTimeoutMs(deps), async () => {
    try {
      await deps.runtime.pause(id);
    } catch (error) {
      throw new AppError("SANDBOX_UNAVAILABLE", `Pausing failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return updateSandbox(deps, id, { status: "PAUSED", statusDetail });
  });
}

/**
 * How long a pause or delete waits for messages in flight: every forward gives up after the agent
 * request timeout, so this bound is only reached when something else is wrong.
 */
export function drainTimeoutMs(deps: {
  config: Pick<CoreConfig, "agentRequestTimeoutMs">;
}): number {
  return deps.config.agentRequestTimeoutMs + 5_000;
}
