import type { IncomingMessage } from "node:http";
import { AppError } from "@sandbox-server/core";

/** The client went away before its body arrived: nobody is left to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super("The client closed the connection before its request body arrived");
    this.name = "ClientGoneError";
  }
}

/** Whether the request carries a body (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  return length !== undefined && length !== "0";
}

/**
 * The body's bytes, at most `limit` of them. A larger body is read to its end but not kept, and
 * then refused with 413: answering while the client is still sending would break its request.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers["content-length"] ?? 0) > limit;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.once("end", () =>
      settle(() =>
        tooLarge ? reject(new AppError("PAYLOAD_TOO_LARGE")) : resolve(Buffer.concat(chunks, size)),
      ),
    );
    req.once("error", () => settle(() => reject(new ClientGoneError())));
    req.once("close", () => settle(() => reject(new ClientGoneError())));
  });
}

/** `application/json`, optionally `; charset=utf-8`: the one body type the API takes. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...parameters] = header.split(";");
  if (type?.trim().toLowerCase() !== "application/json") return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split("=").map((part) => part.trim().toLowerCase());
    return name !== "charset" || value === "utf-8" || value === '"utf-8"';
  });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses a JSON body once, with JSON.parse (which keeps a `__proto__` key as an own property, so
 * the input schemas can refuse it). It must be a JSON object: a procedure's input is that object
 * plus the path parameters, so `true`, `5` or `[...]` must not pass as `{}`. Its depth is checked
 * once, for both surfaces, by the procedures' middleware (`assertBoundedInput` in core's trpc.ts).
 */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new AppError("MALFORMED_JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new AppError("VALIDATION_FAILED", "The request body must be a JSON object", {
      issues: [{ path: [], message: "Expected a JSON object" }],
    });
  }
  return value as Record<string, unknown>;
}
