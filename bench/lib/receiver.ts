import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Receiver {
  url: string;
  /** Deliveries answered so far. */
  received(): number;
  /** Resolves with performance.now() of the first delivery whose body contains `marker`. */
  arrivalOf(marker: string, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * A webhook receiver in the bench process: answers 204 after `delayMs` (a slow endpoint when > 0)
 * and notes when each delivery's body arrived, so a waiter can find a delivery by a marker.
 */
export async function startReceiver(delayMs: number): Promise<Receiver> {
  let count = 0;
  const arrivals = new Map<string, number>();
  const bodies: { at: number; body: string }[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const at = performance.now();
      if (delayMs === 0) {
        bodies.push({ at, body });
        for (const wake of waiters) wake();
      }
      const answer = () => {
        count += 1;
        res.writeHead(204).end();
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const find = (marker: string) => {
    const known = arrivals.get(marker);
    if (known !== undefined) return known;
    const hit = bodies.find((b) => b.body.includes(marker));
    if (hit) arrivals.set(marker, hit.at);
    return hit?.at;
  };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => count,
    arrivalOf(marker, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const at = find(marker);
          if (at === undefined) return;
          cleanup();
          resolve(at);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no delivery with ${marker} within ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
