import { type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { AppError, describeError, type ErrorCode } from "@sandbox-server/core";
import { errorBody } from "./error-response";
import type { HttpRequest } from "./http-types";
import { requestIdOf } from "./request-log";

/** What the client sees when its bytes never became a (complete) request. */
function codeFor(code: string | undefined): ErrorCode {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return "HEADERS_TOO_LARGE";
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return "REQUEST_TIMEOUT";
    default:
      return "BAD_REQUEST";
  }
}

/**
 * Requests that fail in Node's HTTP parser (a URL or headers over Node's 16 KiB limit, malformed
 * HTTP or chunked encoding, a request too slow to arrive) get Node's bare status line by default,
 * or nothing at all once the request line was read. Here they get the same JSON error body as
 * every other error, then the connection is closed: after a parse error it cannot carry another
 * request.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The response of a request whose body broke off, if express already holds one.
    const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    // A reset peer cannot be answered; a response already started cannot take a second one.
    if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const described = describeError(new AppError(codeFor(error.code)));
    const body = JSON.stringify(errorBody(described));
    if (response) {
      // An answer that is an error carries the request's id (made now if the caller sent none).
      requestIdOf(response.req as HttpRequest, response);
      response.shouldKeepAlive = false;
      response.writeHead(described.status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(body),
        connection: "close",
      });
      response.end(body, () => socket.destroy());
      return;
    }
    socket.end(
      `HTTP/1.1 ${described.status} ${STATUS_CODES[described.status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}
