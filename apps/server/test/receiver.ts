import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { vi } from "vitest";

/** One request a receiver got (every attempt, failed ones included). */
export interface Received {
  /** webhook-id: the delivery's id, the same on every attempt. */
  deliveryId: string;
  /** webhook-timestamp (unix seconds). */
  timestamp: string;
  /** webhook-signature (`v1,<base64>`). */
  signature: string;
  /** The Authorization header, "" when none was sent. */
  authorization: string;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads are inspected structurally
  payload: any;
  /** The status the receiver answered; null while (or because) it hung. */
  answered: number | null;
  /** The sender gave up on a request that was never answered (its connection closed). */
  abandoned: boolean;
}

/** Decides the answer to each request: a status, or "hang" to never answer. */
export type Responder = (request: Received, attempt: number) => number | "hang";

/** A webhook receiver on 127.0.0.1 that records every request and answers as told. */
export interface Receiver {
  url: string;
  received: Received[];
  /** The successfully answered requests, first answer per delivery id only. */
  delivered(): Received[];
  respond: Responder;
  /** Stops listening (connections refused) until `up()`; same port after. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 200): Promise<Receiver> {
  const attempts = new Map<string, number>();
  let port = 0;
  let server: Server;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = (name: string) => String(req.headers[name] ?? "");
      const received: Received = {
        deliveryId: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        authorization: header("authorization"),
        body,
        payload: JSON.parse(body),
        answered: null,
        abandoned: false,
      };
      const attempt = (attempts.get(received.deliveryId) ?? 0) + 1;
      attempts.set(received.deliveryId, attempt);
      r.received.push(received);
      const answer = r.respond(received, attempt);
      if (answer === "hang") {
        res.once("close", () => {
          received.abandoned = true;
        });
        return;
      }
      received.answered = answer;
      res.statusCode = answer;
      res.end();
    });
  };

  const listen = async () => {
    server = createServer(handle);
    server.listen(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };

  await listen();
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    received: [],
    delivered() {
      const seen = new Set<string>();
      return r.received.filter((x) => {
        if (x.answered === null || x.answered >= 300 || seen.has(x.deliveryId)) return false;
        seen.add(x.deliveryId);
        return true;
      });
    },
    respond,
    down: stop,
    up: listen,
    close: stop,
  };
  return r;
}

/**
 * What a receiver does: verify with the official `standardwebhooks` package (which also refuses a
 * timestamp more than 5 minutes away). Any failure, a secret it cannot decode included, is false.
 */
export function verifySignature(secret: string, received: Received): boolean {
  try {
    new Webhook(secret).verify(received.body, {
      "webhook-id": received.deliveryId,
      "webhook-timestamp": received.timestamp,
      "webhook-signature": received.signature,
    });
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` (vitest's `vi.waitFor`) until it returns a truthy value; fails with `describe()`. */
export function waitUntil<T>(
  check: () => T | Promise<T>,
  describe: () => string,
  timeoutMs = 20_000,
): Promise<Exclude<T, null | undefined | false>> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (!value) throw new Error(`timed out: ${describe()}`);
      return value as Exclude<T, null | undefined | false>;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}
