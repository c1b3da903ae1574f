import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  webhookId: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are inspected structurally
  payload: any;
  /** 200, or null for a request held unanswered. */
  answered: number | null;
}

/**
 * A webhook receiver on 127.0.0.1 that, while `holding`, takes requests and never answers them
 * (a delivery stays in flight at its sender); otherwise it answers 200. Records every request.
 */
export interface HoldingReceiver {
  url: string;
  received: Received[];
  holding: boolean;
  close(): Promise<void>;
}

export async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const receiver: HoldingReceiver = {
    url: "",
    received: [],
    holding: true,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let payload: unknown = null;
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // recorded as null
      }
      const answered = receiver.holding ? null : 200;
      receiver.received.push({
        webhookId: String(req.headers["webhook-id"] ?? ""),
        payload,
        answered,
      });
      if (answered === null) return;
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
