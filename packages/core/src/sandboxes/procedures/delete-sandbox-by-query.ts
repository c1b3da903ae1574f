import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { DeleteSandboxByQueryInput, DeleteSandboxOutput } from "../contracts";
import { deleteSandbox as deleteSandboxVerb } from "../service/delete-sandbox";

/** OpenHands' TypeScript CloudWorkspace deletes with the id in the query only. */
export const deleteSandboxByQuery = authedProcedure
  .meta(
    rest("DELETE", "/sandboxes", "delete_sandbox", {
      summary: "Stop and remove a sandbox named in the query",
      description:
        "`DELETE /sandboxes?sandbox_id=…`: the same as `DELETE /sandboxes/{id}`, for clients that send the id in the query only.",
      tag: "Sandboxes",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(DeleteSandboxByQueryInput)
  .output(DeleteSandboxOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteSandboxVerb(ctx.deps, ctx.user.id, input.sandbox_id);
    return { success: true, id: input.sandbox_id };
  });
