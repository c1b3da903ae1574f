import { getTRPCErrorFromUnknown, initTRPC, type TRPCError } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { Context } from "./context";
import { describeError, toTRPCError } from "./describe-error";
import { AppError, errorCodes, HttpStatus } from "./errors";
import { runIdempotent } from "./idempotency/run-idempotent";
import { MAX_INPUT_DEPTH, nestsDeeperThan } from "./shared/json-depth";
import type { Meta } from "./shared/rest";

export type { Meta } from "./shared/rest";

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

/** Input nested too deeply is refused before anything walks it (both surfaces). */
async function assertBoundedInput(getRawInput: () => Promise<unknown>): Promise<void> {
  if (nestsDeeperThan(await getRawInput(), MAX_INPUT_DEPTH)) {
    throw new AppError("VALIDATION_FAILED", "The input is nested too deeply", {
      issues: [{ path: [], message: `Nested deeper than ${MAX_INPUT_DEPTH} levels` }],
    });
  }
}

/**
 * Whatever fails in `run` (thrown there, or returned by the chain below) leaves with the table's
 * tRPC code: without this tRPC would call every `AppError` INTERNAL_SERVER_ERROR on its own.
 */
async function withMappedErrors<R extends { ok: boolean }>(run: () => Promise<R>): Promise<R> {
  let result: R;
  try {
    result = await run();
  } catch (cause) {
    // tRPC turns what a middleware throws into a failed result carrying this very error.
    throw toTRPCError(getTRPCErrorFromUnknown(cause));
  }
  if (result.ok) return result;
  const failed = result as unknown as { error: TRPCError };
  const error = toTRPCError(failed.error);
  return error === failed.error ? result : { ...result, error };
}

/**
 * A success no procedure ran: a create's stored answer, replayed. tRPC makes middleware results
 * only in `next()` and exports no way to make one; of a result it reads `ok` and `data` (`marker`
 * is a brand for the type checker alone), so this is cast to the type `next()` returns.
 */
function replayed<R>(data: unknown): R {
  return { ok: true, data } as R;
}

// Each procedure's checks are one middleware, not one each: every level of tRPC's chain copies
// its options and context on every call, and send-message is called for every message.

/** Every public procedure's only middleware: bounded input, mapped errors. */
export const publicProcedure = t.procedure.use(({ getRawInput, next }) =>
  withMappedErrors(async () => {
    await assertBoundedInput(getRawInput);
    return next();
  }),
);

/**
 * Procedures that need a valid API key (`ctx.user` is set past this point). Creates
 * (`successStatus` 201) sent with an `Idempotency-Key`: the same key and body replay the first
 * answer instead of creating again (see `idempotency/`); other procedures ignore the header.
 */
export const authedProcedure = t.procedure.use(({ ctx, meta, path, getRawInput, next }) =>
  withMappedErrors(async () => {
    await assertBoundedInput(getRawInput);
    const user = ctx.user;
    if (!user) throw new AppError("UNAUTHORIZED");
    const key = ctx.idempotency.key;
    if (meta?.successStatus !== HttpStatus.CREATED || key === null) return next({ ctx: { user } });
    return runIdempotent({
      deps: ctx.deps,
      user,
      state: ctx.idempotency,
      key,
      path,
      successStatus: meta.successStatus,
      getRawInput,
      next: () => next({ ctx: { user } }),
      replay: (data) => replayed(data),
    });
  }),
);

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (!ctx.user.isAdmin) throw new AppError("FORBIDDEN", "Only admins may do this");
  return next();
});
