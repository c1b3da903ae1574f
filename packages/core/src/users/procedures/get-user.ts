import { AppError } from "../../errors";
import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { UserIdInput, UserOut } from "../contracts";
import { userOut } from "../user-out";

export const getUser = adminProcedure
  .meta(
    rest("GET", "/users/{id}", "get_user", {
      summary: "Read a user (admins only)",
      description: "One user with their role and state; for admins only (403 otherwise).",
      tag: "Users",
      errors: ["FORBIDDEN", "USER_NOT_FOUND"],
    }),
  )
  .input(UserIdInput)
  .output(UserOut)
  .query(async ({ ctx, input }) => {
    const user = await ctx.deps.repos.users.get(input.id);
    if (!user) throw new AppError("USER_NOT_FOUND", `User ${input.id} was not found`);
    return userOut(user);
  });
