import { initTRPC } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
// The marker every middleware result carries: a replayed create answers without calling `next`.
import { middlewareMarker } from "@trpc/server/unstable-core-do-not-import";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Context } from "./context";
import { describeError, toTRPCError } from "./describe-error";
import { AppError, errorCodes, HttpStatus } from "./errors";
import { runIdempotent } from "./idempotency/run-idempotent";
import { MAX_INPUT_DEPTH, nestsDeeperThan } from "./shared/json-depth";

export type Meta = OpenApiMeta<{
  /** HTTP status of a successful REST call (201 for creates); 200 when absent. */
  successStatus?: number;
  /**
   * Query parameters a body method (POST/PUT/PATCH) also takes, beside its JSON body (OpenHands'
   * `POST /sandboxes?sandbox_spec_id=`). Other methods take their whole input from the query.
   */
  bodyQuery?: string[];
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ error }) {
      const described = describeError(error);
      // Replaces tRPC's default shape (which carries the stack in development) entirely.
      return {
        message: described.message,
        code: TRPC_ERROR_CODES_BY_KEY[errorCodes[described.code].trpc],
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

/** First in every procedure's chain: whatever fails below leaves with the table's tRPC code. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const error = toTRPCError(result.error);
  return error === result.error ? result : { ...result, error };
});

/** Input nested too deeply is refused before anything walks it (both surfaces). */
const boundedInput = t.middleware(async ({ getRawInput, next }) => {
  if (nestsDeeperThan(await getRawInput(), MAX_INPUT_DEPTH)) {
    throw new AppError("VALIDATION_FAILED", "The input is nested too deeply", {
      issues: [{ path: [], message: `Nested deeper than ${MAX_INPUT_DEPTH} levels` }],
    });
  }
  return next();
});

export const publicProcedure = t.procedure.use(mapErrors).use(boundedInput);

/**
 * Creates (`successStatus` 201) sent with an `Idempotency-Key`: the same key and body replay the
 * first answer instead of creating again (see `idempotency/`). Other procedures ignore the header.
 */
const idempotentCreates = t.middleware(async ({ ctx, meta, path, getRawInput, next }) => {
  const key = ctx.idempotency.key;
  if (meta?.successStatus !== HttpStatus.CREATED || key === null || !ctx.user) return next();
  return runIdempotent({
    deps: ctx.deps,
    user: ctx.user,
    state: ctx.idempotency,
    key,
    path,
    successStatus: meta.successStatus,
    getRawInput,
    next: () => next(),
    replay: (data) => ({ ok: true as const, data, marker: middlewareMarker }),
  });
});

/** Procedures that need a valid API key; `ctx.user` is set past this point. */
export const authedProcedure = publicProcedure
  .use(({ ctx, next }) => {
    const user = ctx.user;
    if (!user) throw new AppError("UNAUTHORIZED");
    return next({ ctx: { ...ctx, user } });
  })
  .use(idempotentCreates);

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (!ctx.user.isAdmin) throw new AppError("FORBIDDEN", "Only admins may do this");
  return next();
});
