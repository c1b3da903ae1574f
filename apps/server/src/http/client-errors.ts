import { type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** What the client sees when its bytes never became a request. */
function answerFor(code: string | undefined): [status: number, code: string, message: string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "HEADERS_TOO_LARGE", "The request line or headers are too large"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "REQUEST_TIMEOUT", "The request was not received in time"];
    default:
      return [400, "BAD_REQUEST", "The request is not valid HTTP"];
  }
}

/**
 * Requests that fail before they reach express (a URL or headers over Node's 16 KiB limit,
 * malformed HTTP, a request too slow to arrive) get Node's bare status line by default. Here they
 * get the same JSON error body as every other error, then the connection is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset peer cannot be answered; a socket mid-response cannot take a second one.
    const inResponse = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inResponse) {
      socket.destroy();
      return;
    }
    const [status, code, message] = answerFor(error.code);
    const body = JSON.stringify({ code, message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
    );
  });
}
