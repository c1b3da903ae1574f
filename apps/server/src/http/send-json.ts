import type { ServerResponse } from "node:http";

/**
 * Answers with a JSON body: what express's `res.status(status).json(body)` sends (same
 * content type and length), written with Node's own response methods so express's response
 * helpers are not needed on the REST path. `undefined` is an empty body, as with express.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", Buffer.byteLength(text));
  res.end(text);
}
