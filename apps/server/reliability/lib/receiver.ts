import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  deliveryId: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are inspected structurally
  payload: any;
  /** The status the receiver answered. */
  answered: number;
}

/** A webhook receiver on 127.0.0.1 that records every request and answers `status()`. */
export interface Receiver {
  url: string;
  received: Delivery[];
  status: () => number;
  close(): Promise<void>;
}

export async function startReceiver(status: () => number = () => 200): Promise<Receiver> {
  const receiver: Receiver = { url: "", received: [], status, close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answered = receiver.status();
      let payload: unknown = null;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // recorded as null
      }
      receiver.received.push({
        deliveryId: String(req.headers["webhook-id"] ?? ""),
        payload,
        answered,
      });
      res.statusCode = answered;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
