import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, SandboxIdInput, toSandbox } from "../contracts";
import { pauseSandbox as pauseSandboxVerb } from "../service/pause-sandbox";

export const pauseSandbox = authedProcedure
  .meta(
    rest("POST", "/sandboxes/{id}/pause", "pause_sandbox", {
      summary: "Pause a sandbox",
      description:
        "Freezes a RUNNING sandbox (`docker pause` or SIGSTOP): its processes stop, its state stays. Pausing a PAUSED sandbox succeeds and changes nothing; any other status is 409 with the current one.",
      tag: "Sandboxes",
      operationIdPath: "/sandboxes/{sandbox_id}/pause",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(SandboxIdInput)
  .output(Sandbox)
  .mutation(async ({ ctx, input }) =>
    toSandbox(await pauseSandboxVerb(ctx.deps, ctx.user.id, input.id), ctx.deps),
  );
