import { z } from "zod";
import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { UserOut } from "./contracts";
import { userOut } from "./user-out";

export const getMe = authedProcedure
  .meta(
    rest("GET", "/users/me", "get_me", { summary: "The user behind the API key", tag: "Users" }),
  )
  .input(z.object({}))
  .output(UserOut)
  .query(({ ctx }) => userOut(ctx.user));
