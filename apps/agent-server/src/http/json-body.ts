import type { IncomingMessage } from "node:http";
import { AppError } from "../errors";

/** True when the request announces a body (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** 413 before a byte is read when the announced length is already too much. */
export function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const length = Number(req.headers["content-length"]);
  if (Number.isFinite(length) && length > limit) throw tooLarge(limit);
}

/**
 * The JSON body of a request, read up to `limit` bytes (413 beyond). Without a body, or with a
 * content type that is not JSON, the result is undefined and the route's validation answers;
 * an empty JSON body is `{}`. Malformed JSON is 422, a charset other than UTF-8 is 415.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  checkDeclaredLength(req, limit);
  const type = (req.headers["content-type"] ?? "").toLowerCase();
  const [mediaType = "", ...parameters] = type.split(";").map((part) => part.trim());
  if (mediaType !== "application/json" && !mediaType.endsWith("+json")) return undefined;
  const charset = parameters
    .find((p) => p.startsWith("charset="))
    ?.slice(8)
    .replace(/"/g, "");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Only UTF-8 JSON bodies are supported");
  }
  const text = (await readBytes(req, limit)).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("VALIDATION_FAILED", [
      { type: "json_invalid", loc: ["body"], msg: "Request body is not valid JSON" },
    ]);
  }
}

function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: AppError) => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("close", onClose);
      req.off("error", onClose);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    // Closed before the end: the client went away or the body was malformed (answered already).
    const onClose = () => finish(new AppError("BAD_REQUEST", "Request body incomplete"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("close", onClose);
    req.on("error", onClose);
  });
}

export function tooLarge(limit: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `Request body larger than ${limit} bytes`);
}
