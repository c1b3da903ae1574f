import { z } from "zod";
import { rest } from "../../shared/rest";
import { adminProcedure } from "../../trpc";
import { UserList } from "../contracts";
import { userOut } from "../user-out";

export const listUsers = adminProcedure
  .meta(
    rest("GET", "/users", "list_users", {
      summary: "Every user, oldest first (admins only)",
      description:
        "Every user with their role and state; for admins only (403 otherwise). Keys are never shown.",
      tag: "Users",
      errors: ["FORBIDDEN"],
    }),
  )
  .input(z.object({}))
  .output(UserList)
  .query(async ({ ctx }) => ({ items: (await ctx.deps.repos.users.list()).map(userOut) }));
