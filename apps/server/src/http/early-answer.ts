import type { ErrorCode } from "@sandbox-server/core";
import { sendErrorCode } from "./error-response";
import type { HttpRequest, HttpResponse } from "./http-types";

/** What is still read and dropped of a body answered without reading it. */
const LINGER_BYTES = 1024 * 1024;

/**
 * For an answer given before the request's body was read (its headers alone decided: no valid
 * credentials): the connection closes after it. The rest of the body is read and dropped for at
 * most `lingerMs` (and LINGER_BYTES), so that a client still sending reads the answer rather than
 * a reset; a client slower than that — one byte a second — is cut off then, not when it is done.
 */
export function closeAfterAnswer(req: HttpRequest, res: HttpResponse, lingerMs: number): void {
  res.setHeader("connection", "close");
  if (req.complete || req.destroyed) return;
  let left = LINGER_BYTES;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, lingerMs);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cut();
  });
  req.once("end", () => clearTimeout(timer));
  req.once("close", () => clearTimeout(timer));
  req.resume();
}

/** Answers `code` before the body is read, then closes (see `closeAfterAnswer`). */
export function answerBeforeBody(
  req: HttpRequest,
  res: HttpResponse,
  code: ErrorCode,
  lingerMs: number,
): void {
  closeAfterAnswer(req, res, lingerMs);
  sendErrorCode(res, code);
}
