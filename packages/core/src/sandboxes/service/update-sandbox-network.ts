import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { SandboxNetworkInput } from "../network-contracts";
import { egressPolicyOf } from "./egress-policy";
import { findOwnedSandbox, illegalMove, updateSandbox } from "./status";

/**
 * Replaces the fields of a RUNNING or PAUSED sandbox's egress policy that `input` carries. The
 * runtime puts it in force first, then the record follows: what the API shows is what is
 * enforced, also when the runtime refuses.
 */
export async function updateSandboxNetwork(
  deps: Pick<
    CoreDeps,
    "events" | "locks" | "log" | "now" | "portUrls" | "repos" | "runtime" | "transaction"
  > & { config: Pick<CoreConfig, "operatorEgress"> },
  ownerId: string,
  id: string,
  input: SandboxNetworkInput,
): Promise<SandboxRow> {
  const before = await findOwnedSandbox(deps, ownerId, id);
  egressPolicyOf(deps, before.network, input, []);
  return deps.locks.run(id, async () => {
    const row = await findOwnedSandbox(deps, ownerId, id);
    if (row.status !== "RUNNING" && row.status !== "PAUSED") {
      throw illegalMove(row, "change the egress policy of");
    }
    const { setEgressPolicy } = deps.runtime;
    if (!setEgressPolicy) {
      throw new AppError(
        "EGRESS_POLICY_NOT_LIVE",
        `The ${deps.runtime.kind} runtime cannot change the egress policy of a sandbox after its start; start a sandbox with the policy instead`,
      );
    }
    const network = egressPolicyOf(deps, row.network, input, []);
    try {
      await setEgressPolicy.call(deps.runtime, id, network);
    } catch (error) {
      throw new AppError(
        "SANDBOX_UNAVAILABLE",
        `The egress policy could not be changed: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    deps.log.info(
      {
        sandboxId: id,
        allowInternet: network.allowInternet,
        allowOut: network.allowOut.length,
        denyOut: network.denyOut.length,
      },
      "sandbox egress policy changed",
    );
    return (await updateSandbox(deps, id, { network })) ?? row;
  });
}
