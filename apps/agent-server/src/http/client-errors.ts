import { type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/** The response in progress on each connection, so a framing error knows what it interrupts. */
const inFlight = new WeakMap<Duplex, ServerResponse>();

export function trackResponse(socket: Socket, res: ServerResponse): void {
  inFlight.set(socket, res);
}

function answerFor(code: string | undefined): [status: number, detail: string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request line or headers too large"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "The request was not received in time"];
    default:
      return [400, "Malformed HTTP request"];
  }
}

/**
 * Requests that Node's parser rejects (malformed request line or headers, a bad chunk size in a
 * body, headers or a body too slow to arrive) get a JSON `{"detail": ...}` answer, then the
 * connection is closed. A response that has already started cannot take a second one: that
 * connection is only closed.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const current = inFlight.get(socket);
    const started = current?.headersSent && !current.writableFinished;
    if (error.code === "ECONNRESET" || !socket.writable || started) {
      socket.destroy();
      return;
    }
    // Whatever the interrupted handler still writes must not surface as an error.
    socket.on("error", () => {});
    const [status, detail] = answerFor(error.code);
    const body = JSON.stringify({ detail });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        "Connection: close\r\n\r\n" +
        body,
      () => socket.destroy(),
    );
  });
}
