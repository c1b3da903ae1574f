import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, toSandbox } from "../contracts";
import { SetSandboxTimeoutInput } from "../lifetime/contracts";
import { setSandboxTimeout as setSandboxTimeoutVerb } from "../lifetime/set-timeout";

export const setSandboxTimeout = authedProcedure
  .meta(
    rest("POST", "/sandboxes/{id}/timeout", "set_sandbox_timeout", {
      summary: "Set a sandbox's timeout",
      description:
        "Allows `timeout_s` more seconds of active time from now, extending or shortening the timeout; what happens then is the sandbox's `on_timeout`. Time spent PAUSED does not count: a PAUSED sandbox's clock starts again when it is resumed. 422 beyond this server's maximum.",
      tag: "Sandboxes",
      operationIdPath: "/sandboxes/{sandbox_id}/timeout",
      errors: ["SANDBOX_NOT_FOUND", "INVALID_SANDBOX_STATE"],
    }),
  )
  .input(SetSandboxTimeoutInput)
  .output(Sandbox)
  .mutation(async ({ ctx, input }) =>
    toSandbox(
      await setSandboxTimeoutVerb(ctx.deps, ctx.user.id, input.id, input.timeout_s),
      ctx.deps,
    ),
  );
