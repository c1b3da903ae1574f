import { rest } from "../../shared/rest";
import { publicProcedure } from "../../trpc";
import { SandboxSecretsInput, SecretNames } from "../secrets-contracts";
import { authorizeSandboxSession } from "../service/session-auth";

/**
 * OpenHands' SDK reads the secrets a sandbox may use with the sandbox's own session key. This
 * server keeps no user secrets (a sandbox gets its environment at start), so the list is empty.
 */
export const listSandboxSecrets = publicProcedure
  .meta(
    rest("GET", "/sandboxes/{id}/settings/secrets", "list_secret_names", {
      summary: "Names of the secrets a sandbox may read",
      description:
        "Authenticated with the sandbox's own session key (`X-Session-API-Key`), not an API key: 401 without a valid key of a RUNNING sandbox, 403 for another sandbox's key. Always an empty list: this server stores no user secrets.",
      tag: "Sandboxes",
      operationIdPath: "/sandboxes/{sandbox_id}/settings/secrets",
      sessionKey: true,
      errors: ["UNAUTHORIZED", "FORBIDDEN"],
    }),
  )
  .input(SandboxSecretsInput)
  .output(SecretNames)
  .query(async ({ ctx, input }) => {
    await authorizeSandboxSession(ctx.deps, ctx.sessionApiKey, input.id);
    return { secrets: [] };
  });
