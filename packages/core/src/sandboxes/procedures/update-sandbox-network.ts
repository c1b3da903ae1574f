import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, SandboxIdInput, toSandbox } from "../contracts";
import { SandboxNetworkInput } from "../network-contracts";
import { updateSandboxNetwork as updateSandboxNetworkVerb } from "../service/update-sandbox-network";

export const updateSandboxNetwork = authedProcedure
  .meta(
    rest("PATCH", "/sandboxes/{id}/network", "update_sandbox_network", {
      summary: "Change a sandbox's egress policy",
      description:
        "Replaces the fields present (`allow_internet`, `allow_out`, `deny_out`) of a RUNNING or PAUSED sandbox's egress policy; new connections follow it at once. Any other status is 409 with the current one; a runtime that cannot change a policy live answers 501. An `allow_out` entry outside the server's SANDBOX_EGRESS_ALLOW is 422 naming it.",
      tag: "Sandboxes",
      errors: [
        "SANDBOX_NOT_FOUND",
        "INVALID_SANDBOX_STATE",
        "EGRESS_POLICY_NOT_LIVE",
        "SANDBOX_UNAVAILABLE",
      ],
    }),
  )
  .input(SandboxIdInput.extend(SandboxNetworkInput.shape))
  .output(Sandbox)
  .mutation(async ({ ctx, input }) => {
    const { id, ...network } = input;
    return toSandbox(await updateSandboxNetworkVerb(ctx.deps, ctx.user.id, id, network), ctx.deps);
  });
