import { sendErrorCode } from "./error-response";
import type { HttpRequest, HttpResponse } from "./http-types";
import { hasBody } from "./rest/json-body";

interface Watched {
  res: HttpResponse;
  /** The socket's bytes read when last seen moving, and when that was. */
  bytes: number;
  since: number;
}

/**
 * Cuts request bodies that stop arriving: a body of which no byte came for `idleMs` is answered
 * 408 and its connection closed (before, such a request held its connection until Node's request
 * timeout). One sweep for every request in flight, so a request costs a map entry, not a timer;
 * progress is the socket's byte count, so nothing here reads the body. A body we have not read
 * yet (bytes waiting in the request's buffer) is never the client's stall.
 */
export class StalledBodies {
  private readonly watched = new Map<HttpRequest, Watched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly idleMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Watches the request's body until it has arrived (or the exchange ends). */
  watch(req: HttpRequest, res: HttpResponse): void {
    if (!hasBody(req) || req.complete) return;
    this.watched.set(req, { res, bytes: req.socket.bytesRead, since: this.now() });
    const forget = () => this.forget(req);
    req.once("end", forget);
    req.once("close", forget);
    res.once("close", forget);
    this.timer ??= setInterval(() => this.sweep(), Math.max(10, Math.floor(this.idleMs / 4)));
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.watched.clear();
  }

  private forget(req: HttpRequest): void {
    this.watched.delete(req);
    if (this.watched.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private sweep(): void {
    const now = this.now();
    for (const [req, entry] of this.watched) {
      const bytes = req.socket.bytesRead;
      if (bytes !== entry.bytes || req.readableLength > 0) {
        entry.bytes = bytes;
        entry.since = now;
        continue;
      }
      if (now - entry.since < this.idleMs) continue;
      this.forget(req);
      cut(req, entry.res);
    }
  }
}

function cut(req: HttpRequest, res: HttpResponse): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  res.setHeader("connection", "close");
  res.once("finish", () => req.socket.destroy());
  sendErrorCode(res, "REQUEST_TIMEOUT", "No byte of the request body arrived for too long");
}
