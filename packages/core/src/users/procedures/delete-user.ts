import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { DeletedUser, UserIdInput } from "../contracts";
import { deleteUser as deleteUserVerb } from "../service/manage-user";

export const deleteUser = adminProcedure
  .meta(
    rest("DELETE", "/users/{id}", "delete_user", {
      summary: "Delete a user (admins only)",
      description:
        "Their keys are refused at once, every sandbox of theirs is deleted (its conversations archived) and their keys removed; the user is gone from the API (404). Admins cannot delete themselves (409). When a sandbox cannot be removed the call answers 503 with the user disabled; call again to finish.",
      tag: "Users",
      errors: ["FORBIDDEN", "USER_NOT_FOUND", "CANNOT_MODIFY_SELF", "SANDBOX_UNAVAILABLE"],
    }),
  )
  .input(UserIdInput)
  .output(DeletedUser)
  .mutation(async ({ ctx, input }) => {
    await deleteUserVerb(ctx.deps, ctx.user.id, input.id);
    return { success: true, id: input.id };
  });
