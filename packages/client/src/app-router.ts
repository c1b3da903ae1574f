import type { AppRouter as ServerRouter } from "@sandbox-server/core";
import type {
  inferRouterInputs,
  inferRouterOutputs,
  TRPC_ERROR_CODE_NUMBER,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
} from "@trpc/server";

/** One problem with a request's input, as a 422 `VALIDATION_FAILED` lists them. */
export interface SandboxErrorIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}

/** `TRPCClientError.data` of every failed call: the stable code and the real HTTP status. */
export interface SandboxErrorData {
  /** Stable machine-readable code, e.g. `SANDBOX_NOT_RUNNING`, `CONVERSATION_ARCHIVED`. */
  code: string;
  /** The status the REST surface answers for the same error (404, 409, 410, 422, 503, ...). */
  httpStatus: number;
  issues?: SandboxErrorIssue[];
  details?: Record<string, unknown>;
}

export interface SandboxErrorShape {
  message: string;
  code: TRPC_ERROR_CODE_NUMBER;
  data: SandboxErrorData;
}

type ServerRecord = ServerRouter["_def"]["record"];

/** A procedure as a client sees it: its input, output and error shape, nothing of the server. */
type ClientProcedure<P> =
  P extends TRPCQueryProcedure<infer D>
    ? TRPCQueryProcedure<{
        input: D["input"];
        output: D["output"];
        meta: object;
        errorShape: SandboxErrorShape;
      }>
    : P extends TRPCMutationProcedure<infer D>
      ? TRPCMutationProcedure<{
          input: D["input"];
          output: D["output"];
          meta: object;
          errorShape: SandboxErrorShape;
        }>
      : never;

/**
 * The server's router without its context: the server's `AppRouter` type carries the control
 * plane's context (database handles, runtime, logger), whose declarations would drag drizzle,
 * better-sqlite3, undici and Node's types into every client. Its type is inferred on purpose:
 * the declaration emitter then writes every procedure's input and output out in full, so the
 * published `.d.ts` needs nothing of the server (see build.mjs). Only its type is used.
 */
function clientRouterOf<TRecord>(): TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: SandboxErrorShape; transformer: false },
  { [R in keyof TRecord]: { [P in keyof TRecord[R]]: ClientProcedure<TRecord[R][P]> } }
> {
  return undefined as never;
}

const appRouter = clientRouterOf<ServerRecord>();

/** The control plane's router, for `createTRPCClient<AppRouter>` and the infer helpers. */
export type AppRouter = typeof appRouter;
/** Every procedure's input, e.g. `RouterInputs["sandboxes"]["start"]`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, e.g. `RouterOutputs["conversations"]["get"]`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
