import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Context } from "./context";
import { describeError } from "./describe-error";

export type Meta = OpenApiMeta<{
  /** HTTP status of a successful REST call (201 for creates); 200 when absent. */
  successStatus?: number;
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const described = describeError(error);
      // Replaces tRPC's default data (which carries the stack in development) entirely.
      return {
        message: described.message,
        code: shape.code,
        data: {
          code: described.code,
          httpStatus: described.status,
          ...(described.issues ? { issues: described.issues } : {}),
          ...(described.details ? { details: described.details } : {}),
        },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;

/** Procedures that need a valid API key; `ctx.user` is set past this point. */
export const authedProcedure = t.procedure.use(({ ctx, next }) => {
  const user = ctx.user;
  if (!user) {
    throw new TRPCError({ code: "UNAUTHORIZED", message: "A valid API key is required" });
  }
  return next({ ctx: { ...ctx, user } });
});

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (!ctx.user.isAdmin) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Only admins may do this" });
  }
  return next();
});
