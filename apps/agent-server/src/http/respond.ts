import type { IncomingMessage, ServerResponse } from "node:http";

/** Answers with a JSON body (the one content type of this API). */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  // The connection may already carry a raw answer (see client-errors.ts) or be gone.
  if (res.writableEnded || res.destroyed || res.socket?.writableEnded) return;
  const text = JSON.stringify(body) ?? "null";
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** What is still read of a body we answered without reading it (413, 415, ...). */
const LINGER_BYTES = 8 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * After an early answer, the rest of the request body is read and dropped for a little while,
 * so that a client still sending gets to read our answer instead of a reset connection; past
 * the budget the connection is closed.
 */
export function discardRest(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let left = LINGER_BYTES;
  const close = () => req.socket.destroy();
  const timer = setTimeout(close, LINGER_MS);
  timer.unref();
  req.on("data", (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) close();
  });
  req.once("end", () => clearTimeout(timer));
  req.once("close", () => clearTimeout(timer));
  req.resume();
}
