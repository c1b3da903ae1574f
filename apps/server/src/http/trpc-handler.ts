import { appRouter, type Context, type Core, describeError } from "@sandbox-server/core";
import type { TRPCError } from "@trpc/server";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import type { Logger } from "pino";
import { describeAndLog } from "./error-response";
import { contextFor } from "./request-context";
import { requestIdOf } from "./request-log";
import { REPLAYED_HEADER } from "./rest/rest-handler";

/**
 * The tRPC surface. Statuses come from the same error table as REST (`data.httpStatus` is the
 * response status, e.g. 410); successes are 200 (JSON-RPC style).
 */
export function trpcHandler(options: { core: Core; log: Logger; bodyLimitBytes: number }) {
  const { core, log } = options;
  return createExpressMiddleware({
    router: appRouter,
    createContext: ({ req, res }) => contextFor(core, req, res),
    maxBodySize: options.bodyLimitBytes,
    responseMeta: ({ ctx, errors }: { ctx?: Context; errors: TRPCError[] }) => {
      const [error] = errors;
      if (!error) {
        return ctx?.idempotency.replayed ? { headers: { [REPLAYED_HEADER]: "true" } } : {};
      }
      const described = describeError(error);
      const retryAfter = described.retryAfterSeconds;
      return {
        status: described.status,
        ...(retryAfter ? { headers: { "retry-after": String(retryAfter) } } : {}),
      };
    },
    onError: ({ error, path, req }) => {
      describeAndLog(log, error, () => ({ requestId: requestIdOf(req), procedure: path }));
    },
  });
}
