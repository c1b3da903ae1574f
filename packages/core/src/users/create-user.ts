import { newId } from "../shared/ids";
import { rest } from "../shared/rest";
import { iso } from "../shared/time";
import { adminProcedure } from "../trpc";
import { issueApiKey } from "./api-keys";
import { CreatedUser, CreateUserInput } from "./contracts";

export const createUser = adminProcedure
  .meta(
    rest("POST", "/users", "create_user", {
      summary: "Create a user and their first API key (admins only)",
      tag: "Users",
      successStatus: 201,
      errors: [403],
    }),
  )
  .input(CreateUserInput)
  .output(CreatedUser)
  .mutation(async ({ ctx, input }) => {
    // The user and their first key, or neither: a user without a key could never sign in.
    const { user, apiKey } = await ctx.deps.transaction(async (tx) => {
      const user = await tx.users.insert({
        id: newId("usr"),
        name: input.name,
        isAdmin: input.is_admin ?? false,
        createdAt: ctx.deps.now(),
      });
      return { user, apiKey: await issueApiKey(ctx.deps, user.id, "default", undefined, tx) };
    });
    ctx.log.info({ userId: user.id, byUserId: ctx.user.id }, "user created");
    return {
      id: user.id,
      name: user.name,
      is_admin: user.isAdmin,
      created_at: iso(user.createdAt),
      api_key: apiKey,
    };
  });
