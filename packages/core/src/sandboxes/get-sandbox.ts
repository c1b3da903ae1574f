import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { Sandbox, SandboxIdInput, toSandbox } from "./contracts";
import { findOwnedSandbox } from "./service/status";

export const getSandbox = authedProcedure
  .meta(
    rest("GET", "/sandboxes/{id}", "get_sandbox", {
      summary: "Read a sandbox",
      description:
        "One of the caller's sandboxes: its status, `status_detail`, labels and, while RUNNING, `agent_server_url`, `exposed_urls` and `session_api_key`. Another user's sandbox is 404.",
      tag: "Sandboxes",
      errors: ["SANDBOX_NOT_FOUND"],
    }),
  )
  .input(SandboxIdInput)
  .output(Sandbox)
  .query(async ({ ctx, input }) =>
    toSandbox(await findOwnedSandbox(ctx.deps, ctx.user.id, input.id)),
  );
