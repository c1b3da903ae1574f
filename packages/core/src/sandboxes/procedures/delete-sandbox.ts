import { AppError } from "../../errors";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { DeleteSandboxInput, DeleteSandboxOutput } from "../contracts";
import { deleteSandbox as deleteSandboxVerb } from "../service/delete-sandbox";

export const deleteSandbox = authedProcedure
  .meta(
    rest("DELETE", "/sandboxes/{id}", "delete_sandbox", {
      summary: "Stop and remove a sandbox",
      description:
        "Its conversations become archived (send-message answers 410). A `sandbox_id` query parameter, as OpenHands' SDK sends, must name the same sandbox (422 otherwise).",
      tag: "Sandboxes",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(DeleteSandboxInput)
  .output(DeleteSandboxOutput)
  .mutation(async ({ ctx, input }) => {
    if (input.sandbox_id !== undefined && input.sandbox_id !== input.id) {
      throw new AppError("VALIDATION_FAILED", "sandbox_id differs from the path id", {
        issues: [{ path: ["sandbox_id"], message: "differs from the path id" }],
      });
    }
    await deleteSandboxVerb(ctx.deps, ctx.user.id, input.id);
    return { success: true, id: input.id };
  });
