import { HttpStatus } from "../../errors";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, StartSandboxInput, toSandbox } from "../contracts";
import { startSandbox as startSandboxVerb } from "../service/start-sandbox";

export const startSandbox = authedProcedure
  .meta(
    rest("POST", "/sandboxes", "start_sandbox", {
      summary: "Start a sandbox",
      description:
        "Answers at once with the sandbox STARTING; it becomes RUNNING when its agent server answers. The body may be absent or empty (with or without a JSON content type); `sandbox_spec_id` may be given in the query instead.",
      tag: "Sandboxes",
      successStatus: HttpStatus.CREATED,
      bodyQuery: ["sandbox_spec_id"],
      errors: ["SANDBOX_SPEC_NOT_FOUND", "SANDBOX_LIMIT_REACHED"],
    }),
  )
  .input(StartSandboxInput)
  .output(Sandbox)
  .mutation(async ({ ctx, input }) =>
    toSandbox((await startSandboxVerb(ctx.deps, ctx.user.id, input)).row, ctx.deps),
  );
