import { z } from "zod";
import { AppError } from "../../errors";
import { rest } from "../../shared/rest";
import { publicProcedure } from "../../trpc";
import { SandboxSecretInput } from "../secrets-contracts";
import { authorizeSandboxSession } from "../service/session-auth";

/** One secret's value, for the sandbox's own session key; no secret exists here (see the list). */
export const getSandboxSecret = publicProcedure
  .meta(
    rest("GET", "/sandboxes/{id}/settings/secrets/{secret_name}", "get_secret_value", {
      summary: "A secret's value, for the sandbox itself",
      description:
        "Authenticated like the secret list. This server stores no user secrets, so a valid key gets 404 for every name (OpenHands' SDK reads 404 as no such secret).",
      tag: "Sandboxes",
      operationIdPath: "/sandboxes/{sandbox_id}/settings/secrets/{secret_name}",
      sessionKey: true,
      errors: ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"],
    }),
  )
  .input(SandboxSecretInput)
  .output(z.string())
  .query(async ({ ctx, input }): Promise<string> => {
    await authorizeSandboxSession(ctx.deps, ctx.sessionApiKey, input.id);
    throw new AppError("NOT_FOUND", "Secret not found");
  });
