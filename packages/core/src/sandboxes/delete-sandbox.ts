import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { DeleteSandboxOutput, SandboxIdInput } from "./contracts";
import { deleteSandbox as deleteSandboxVerb } from "./service/delete-sandbox";

export const deleteSandbox = authedProcedure
  .meta(
    rest("DELETE", "/sandboxes/{id}", "delete_sandbox", {
      summary: "Stop and remove a sandbox",
      description: "Its conversations become archived (send-message answers 410).",
      tag: "Sandboxes",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(SandboxIdInput)
  .output(DeleteSandboxOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteSandboxVerb(ctx.deps, ctx.user.id, input.id);
    return { success: true, id: input.id };
  });
