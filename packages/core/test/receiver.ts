import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookPayload } from "../src/webhooks/contracts";

/** One POST a receiver got. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  payload: WebhookPayload;
}

/** A real webhook receiver on 127.0.0.1 (an ephemeral port) that records every request. */
export interface Receiver {
  /** `http://127.0.0.1:<port>`; any path is accepted. */
  url: string;
  received: ReceivedRequest[];
  /** The status to answer with, by request path (200 when not set). */
  statusFor: Map<string, number>;
  /** When set, chooses the status for a request first (undefined: as `statusFor` says). */
  respond: ((request: ReceivedRequest) => number | undefined) | null;
  /** The requests that arrived at `path`. */
  at(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const statusFor = new Map<string, number>();
  const receiver = { respond: null as Receiver["respond"] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      const request = { path, headers: req.headers, body, payload: JSON.parse(body) };
      received.push(request);
      res.statusCode = receiver.respond?.(request) ?? statusFor.get(path) ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    received,
    statusFor,
    at: (path: string) => received.filter((request) => request.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
