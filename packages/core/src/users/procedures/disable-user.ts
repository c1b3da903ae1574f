import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { UserIdInput, UserOut } from "../contracts";
import { disableUser as disableUserVerb } from "../service/manage-user";
import { userOut } from "../user-out";

export const disableUser = adminProcedure
  .meta(
    rest("POST", "/users/{id}/disable", "disable_user", {
      summary: "Disable a user (admins only)",
      description:
        "Every key of the user is refused from now on and their running sandboxes are paused. Idempotent. Admins cannot disable themselves (409).",
      tag: "Users",
      errors: ["FORBIDDEN", "USER_NOT_FOUND", "CANNOT_MODIFY_SELF", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(UserIdInput)
  .output(UserOut)
  .mutation(async ({ ctx, input }) =>
    userOut(await disableUserVerb(ctx.deps, ctx.user.id, input.id)),
  );
