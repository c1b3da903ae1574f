import { appRouter, type Context, describeError } from "@sandbox-server/core";
import { getTRPCErrorFromUnknown, type TRPCError } from "@trpc/server";
import type { NextFunction, Request, Response } from "express";
import { sendDescribedError } from "./rest-errors";

/**
 * REST `POST /app-conversations/{conversation_id}/send-message`, the hot path, called straight
 * through a tRPC caller: the same procedure (auth, input schema, verb, output schema) that
 * trpc-to-openapi would call, minus its per-request work (URL parsing, matching every route,
 * walking the schema to coerce it, and building a Fetch `Request` only to get an abort signal),
 * which the profile showed as a tenth of the proxy's CPU.
 *
 * Only a request with a JSON content type and an already parsed object body takes this path;
 * everything else (wrong content type, no body) goes on to trpc-to-openapi, so edge cases are
 * answered exactly as on every other operation. Mounted after the body checks and before
 * `reshapeRestErrors`: errors are written here in their final REST shape.
 */
export function sendMessageRoute(
  contextFor: (req: Request) => Promise<Context>,
  onError: (error: TRPCError) => void,
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const body: unknown = req.body;
    const contentType = req.headers["content-type"];
    if (!contentType?.startsWith("application/json") || typeof body !== "object" || !body) {
      next();
      return;
    }
    try {
      const caller = appRouter.createCaller(await contextFor(req));
      const output = await caller.conversations.sendMessage({
        ...(body as Record<string, unknown>),
        conversation_id: req.params.conversation_id,
      } as Parameters<typeof caller.conversations.sendMessage>[0]);
      res.status(200).json(output);
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      onError(error);
      sendDescribedError(res, describeError(error));
    }
  };
}
