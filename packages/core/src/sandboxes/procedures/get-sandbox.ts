import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { Sandbox, toSandbox } from "../contracts";
import { findOwnedSandbox } from "../service/status";
import { waitForSandbox } from "../service/wait-for-sandbox";
import { GetSandboxInput } from "../wait-contracts";

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
  .input(GetSandboxInput)
  .output(Sandbox)
  .query(async ({ ctx, input }) =>
    toSandbox(
      input.wait_for
        ? await waitForSandbox(
            ctx.deps,
            ctx.user.id,
            input.id,
            input.wait_for,
            input.timeout_s * 1000,
          )
        : await findOwnedSandbox(ctx.deps, ctx.user.id, input.id),
      ctx.deps,
    ),
  );
