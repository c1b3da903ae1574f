import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { UserIdInput, UserOut } from "../contracts";
import { enableUser as enableUserVerb } from "../service/manage-user";
import { userOut } from "../user-out";

export const enableUser = adminProcedure
  .meta(
    rest("POST", "/users/{id}/enable", "enable_user", {
      summary: "Enable a disabled user (admins only)",
      description: "Their keys work again; paused sandboxes stay paused until resumed.",
      tag: "Users",
      errors: ["FORBIDDEN", "USER_NOT_FOUND", "CANNOT_MODIFY_SELF"],
    }),
  )
  .input(UserIdInput)
  .output(UserOut)
  .mutation(async ({ ctx, input }) =>
    userOut(await enableUserVerb(ctx.deps, ctx.user.id, input.id)),
  );
