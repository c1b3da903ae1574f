import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, SandboxIdInput, toSandbox } from "../contracts";
import { resumeSandbox as resumeSandboxVerb } from "../service/resume-sandbox";

export const resumeSandbox = authedProcedure
  .meta(
    rest("POST", "/sandboxes/{id}/resume", "resume_sandbox", {
      summary: "Resume a paused sandbox",
      description: "Also restarts a sandbox in ERROR. Waits until the agent server answers again.",
      tag: "Sandboxes",
      operationIdPath: "/sandboxes/{sandbox_id}/resume",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_LIMIT_REACHED"],
    }),
  )
  .input(SandboxIdInput)
  .output(Sandbox)
  .mutation(async ({ ctx, input }) =>
    toSandbox(await resumeSandboxVerb(ctx.deps, ctx.user.id, input.id), ctx.deps),
  );
