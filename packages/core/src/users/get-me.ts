import { z } from "zod";
import { rest } from "../shared/rest";
import { iso } from "../shared/time";
import { authedProcedure } from "../trpc";
import { UserOut } from "./contracts";

export const getMe = authedProcedure
  .meta(
    rest("GET", "/users/me", "get_me", { summary: "The user behind the API key", tag: "Users" }),
  )
  .input(z.object({}))
  .output(UserOut)
  .query(({ ctx }) => ({
    id: ctx.user.id,
    name: ctx.user.name,
    is_admin: ctx.user.isAdmin,
    created_at: iso(ctx.user.createdAt),
  }));
