import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { errorMessage, findOwnedSandbox, illegalMove, updateSandbox } from "./status";

/** RUNNING → PAUSED; pausing a PAUSED sandbox succeeds as is. */
export async function pauseSandbox(
  deps: CoreDeps,
  ownerId: string,
  id: string,
): Promise<SandboxRow> {
  await findOwnedSandbox(deps, ownerId, id);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (row.status === "PAUSED") return row;
    if (row.status !== "RUNNING") throw illegalMove(row, "pause");
    try {
      await deps.runtime.pause(id);
    } catch (error) {
      throw new AppError("SANDBOX_UNAVAILABLE", `Pausing failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return (await updateSandbox(deps, id, { status: "PAUSED", statusDetail: null })) ?? row;
  });
}
