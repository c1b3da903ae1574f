import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { WarmPoolDeps } from "../warm-pool/evict";
import { evictWarmSandboxAtLimit } from "../warm-pool/evict";
import { assertCapacity, markRunning } from "./start-sandbox";
import { findOwnedSandbox, illegalMove, updateSandbox } from "./status";

/**
 * PAUSED or ERROR → STARTING → RUNNING once the agent server answers again; resuming a RUNNING
 * sandbox succeeds as is. Waits (bounded by the start timeout) so the answer is usually RUNNING.
 */
export async function resumeSandbox(
  deps: WarmPoolDeps,
  ownerId: string,
  id: string,
): Promise<SandboxRow> {
  await findOwnedSandbox(deps, ownerId, id);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (row.status === "RUNNING") return row;
    if (row.status !== "PAUSED" && row.status !== "ERROR") throw illegalMove(row, "resume");
    await evictWarmSandboxAtLimit(deps);
    await updateSandbox(deps, id, async (_before, tx) => {
      await assertCapacity(deps, tx);
      return { status: "STARTING", statusDetail: null };
    });
    try {
      // The runtime's resume resolves only once the agent server answers /health again.
      const resumed = await deps.runtime.resume(id);
      if (row.agentServerUrl && resumed.agentServerUrl !== row.agentServerUrl) {
        await deps.agents.forget(row.agentServerUrl);
      }
      return (await markRunning(deps, id, resumed.agentServerUrl)) ?? row;
    } catch (error) {
      return (
        (await updateSandbox(deps, id, {
          status: "ERROR",
          statusDetail: `Failed to resume: ${errorMessage(error)}`,
        })) ?? row
      );
    }
  });
}
