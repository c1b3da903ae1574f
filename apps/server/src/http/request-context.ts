import {
  apiKeyFromHeaders,
  type Context,
  type Core,
  createContextInner,
  idempotencyKeyFromHeaders,
  sessionKeyFromHeaders,
} from "@sandbox-server/core";
import type { HttpRequest } from "./http-types";

/** The procedure context of an HTTP request (both surfaces). */
export async function contextFor(core: Core, req: HttpRequest, rawBody?: Buffer): Promise<Context> {
  return await createContextInner({
    deps: core.deps,
    apiKey: apiKeyFromHeaders(req.headers),
    requestId: req.id,
    rawBody,
    sessionApiKey: sessionKeyFromHeaders(req.headers),
    idempotencyKey: idempotencyKeyFromHeaders(req.headers),
  });
}
