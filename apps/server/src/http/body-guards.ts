import type { IncomingMessage } from "node:http";
import { sendErrorCode } from "./error-response";
import type { HttpMiddleware } from "./http-types";
import { hasBody } from "./rest/json-body";

/** Answers once the request's body has been read off the wire (and dropped), then `send`s. */
function afterDrain(req: IncomingMessage, send: () => void): void {
  if (req.readableEnded) {
    send();
    return;
  }
  req.once("end", send);
  req.resume();
}

/**
 * Checks every route makes before it reads a body: a compressed body (any Content-Encoding but
 * identity) is 415 — we never inflate what clients send — and a body declared larger than the
 * limit is 413 without being kept. Both answer after the body has been drained, so the client
 * sees the answer instead of a broken upload.
 */
export function bodyGuards(limit: number): HttpMiddleware {
  return (req, res, next) => {
    if (!hasBody(req)) {
      next();
      return;
    }
    const encoding = req.headers["content-encoding"]?.trim().toLowerCase();
    if (encoding && encoding !== "identity") {
      afterDrain(req, () =>
        sendErrorCode(
          res,
          "UNSUPPORTED_MEDIA_TYPE",
          "Content-Encoding is not supported; send the body uncompressed",
        ),
      );
    } else if (Number(req.headers["content-length"] ?? 0) > limit) {
      afterDrain(req, () => sendErrorCode(res, "PAYLOAD_TOO_LARGE"));
    } else {
      next();
    }
  };
}
