import {
  apiKeyFromHeaders,
  type Context,
  type Core,
  createContextInner,
  idempotencyKeyFromHeaders,
  sessionKeyFromHeaders,
} from "@sandbox-server/core";
import type { HttpRequest, HttpResponse } from "./http-types";
import { requestIdOf } from "./request-log";

/** The procedure context of an HTTP request (both surfaces). */
export async function contextFor(
  core: Core,
  req: HttpRequest,
  res?: HttpResponse,
  rawBody?: Buffer,
): Promise<Context> {
  return await createContextInner({
    deps: core.deps,
    apiKey: apiKeyFromHeaders(req.headers),
    requestId: () => requestIdOf(req, res),
    rawBody,
    sessionApiKey: sessionKeyFromHeaders(req.headers),
    idempotencyKey: idempotencyKeyFromHeaders(req.headers),
  });
}
