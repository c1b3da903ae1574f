import { AppError } from "../../errors";
import { sandboxOfSessionKey } from "../../sandboxes/service/session-auth";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { GetMeInput, MeOut } from "../contracts";
import { userOut } from "../user-out";

export const getMe = authedProcedure
  .meta(
    rest("GET", "/users/me", "get_me", {
      summary: "The user behind the API key",
      description:
        "With OpenHands' SDK fields (`llm_model`, `llm_base_url`, `llm_api_key`, `llm_profiles`, `mcp_config`), empty here: the server keeps no per-user LLM settings. `expose_secrets=true` is checked as OpenHands does: `X-Session-API-Key` must be the key of a RUNNING sandbox of yours (401 otherwise, 403 for another user's sandbox).",
      tag: "Users",
      errors: ["FORBIDDEN"],
    }),
  )
  .input(GetMeInput)
  .output(MeOut)
  .query(async ({ ctx, input }) => {
    if (input.expose_secrets) {
      const sandbox = await sandboxOfSessionKey(ctx.deps, ctx.sessionApiKey);
      if (sandbox.ownerId !== ctx.user.id) {
        throw new AppError("FORBIDDEN", "The session key belongs to another user's sandbox");
      }
    }
    return {
      ...userOut(ctx.user),
      email: null,
      llm_model: null,
      llm_base_url: null,
      llm_api_key: null,
      llm_profiles: { profiles: {}, active: null },
      mcp_config: null,
    };
  });
