import type { IncomingMessage, ServerResponse } from "node:http";
import { hasBody } from "./json-body";
import { sendJson } from "./respond";

/**
 * A request whose body stops arriving — no byte for `idleMs` — is answered 408 and its connection
 * closed, instead of holding it until the request timeout (minutes, for uploads). Requests are
 * checked by one interval for all of them; progress is the socket's byte count, so the body is
 * left to its route, and bytes already buffered but not yet read by us never count as a stall.
 */
export function watchIdleBodies(idleMs: number): {
  watch(req: IncomingMessage, res: ServerResponse): void;
  stop(): void;
} {
  const inFlight = new Map<IncomingMessage, { res: ServerResponse; seen: number; at: number }>();
  let sweeper: NodeJS.Timeout | undefined;

  const drop = (req: IncomingMessage) => {
    inFlight.delete(req);
  };

  // The interval stops at a sweep that finds nothing in flight, not when the last request ends:
  // back-to-back requests would otherwise start and stop it for each one.
  const sweep = () => {
    if (inFlight.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
      return;
    }
    const at = Date.now();
    for (const [req, seen] of inFlight) {
      const read = req.socket.bytesRead;
      if (read !== seen.seen || req.readableLength > 0) {
        seen.seen = read;
        seen.at = at;
      } else if (at - seen.at >= idleMs) {
        drop(req);
        if (seen.res.headersSent) {
          req.socket.destroy();
          continue;
        }
        seen.res.setHeader("Connection", "close");
        seen.res.once("finish", () => req.socket.destroy());
        sendJson(seen.res, { detail: "Request body stalled: no byte arrived in time" }, 408);
      }
    }
  };

  return {
    watch(req, res) {
      if (req.complete || !hasBody(req)) return;
      inFlight.set(req, { res, seen: req.socket.bytesRead, at: Date.now() });
      req.once("end", () => drop(req));
      res.once("close", () => drop(req));
      if (!sweeper) {
        sweeper = setInterval(sweep, Math.max(10, Math.floor(idleMs / 4)));
        sweeper.unref();
      }
    },
    stop() {
      if (sweeper) clearInterval(sweeper);
      sweeper = undefined;
      inFlight.clear();
    },
  };
}
