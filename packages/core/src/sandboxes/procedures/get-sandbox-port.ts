import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { GetSandboxPortInput, SandboxPortUrl } from "../ports/contracts";
import { signSandboxPort } from "../ports/sign-port";

export const getSandboxPort = authedProcedure
  .meta(
    rest("GET", "/sandboxes/{id}/ports/{port}", "get_sandbox_port", {
      summary: "A signed URL to a port of a sandbox",
      description:
        "A URL that reaches whatever the sandbox serves on `port` (HTTP and WebSocket, any path, no API key) until `expires_at`. Opening it answers 401/403 once it has expired or for another sandbox or port, 404 once the sandbox is deleted, 409 while it is not RUNNING (unless it was created with `auto_resume`: then a PAUSED one is resumed), 502 when nothing listens on the port. The agent server's own port is 422: use `agent_server_url`.",
      tag: "Sandboxes",
      errors: ["SANDBOX_NOT_FOUND", "PORT_NOT_ALLOWED"],
    }),
  )
  .input(GetSandboxPortInput)
  .output(SandboxPortUrl)
  .query(({ ctx, input }) =>
    signSandboxPort(ctx.deps, ctx.user.id, input.id, input.port, input.expires_in_s),
  );
