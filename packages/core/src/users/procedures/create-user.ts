import { issueApiKey } from "../../auth/api-keys";
import { AppError, HttpStatus } from "../../errors";
import { newId } from "../../shared/ids";
import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { CreatedUser, CreateUserInput } from "../contracts";
import { userOut } from "../user-out";

export const createUser = adminProcedure
  .meta(
    rest("POST", "/users", "create_user", {
      summary: "Create a user and their first API key (admins only)",
      tag: "Users",
      description:
        "Refused (409 UNISOLATED_MULTI_USER) while sandboxes run without isolation (process runtime without bubblewrap), unless the server was started with ALLOW_UNISOLATED_MULTI_USER=true.",
      successStatus: HttpStatus.CREATED,
      errors: ["FORBIDDEN", "UNISOLATED_MULTI_USER"],
    }),
  )
  .input(CreateUserInput)
  .output(CreatedUser)
  .mutation(async ({ ctx, input }) => {
    // The user and their first key, or neither: a user without a key could never sign in.
    const { user, apiKey } = await ctx.deps.transaction(async (tx) => {
      if (
        ctx.deps.runtime.isolation === "none" &&
        !ctx.deps.config.allowUnisolatedMultiUser &&
        (await tx.users.count()) > 0
      ) {
        throw new AppError(
          "UNISOLATED_MULTI_USER",
          "Sandboxes on this server are not isolated (process runtime without bubblewrap), so it serves one person only. Install bubblewrap or run Docker, or start the server with ALLOW_UNISOLATED_MULTI_USER=true to accept the risk.",
        );
      }
      const user = await tx.users.insert({
        id: newId("usr"),
        name: input.name,
        isAdmin: input.is_admin ?? false,
        createdAt: ctx.deps.now(),
      });
      return { user, apiKey: await issueApiKey(ctx.deps, user.id, "default", undefined, tx) };
    });
    ctx.log.info({ userId: user.id, byUserId: ctx.user.id }, "user created");
    return { ...userOut(user), api_key: apiKey };
  });
