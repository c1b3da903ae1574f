import type { ServerOptions } from "node:http";

/** Bounds on how long a client may take; each one ends a connection that would otherwise linger. */
export interface HttpTimeouts {
  /** From the connection's first byte to the end of the request headers. */
  headersTimeoutMs: number;
  /** From the first byte to the end of the whole request, body included. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two request timeouts (their granularity). */
  checkIntervalMs: number;
  /** A request body of which no byte arrives for this long is answered 408 and cut. */
  bodyIdleTimeoutMs: number;
  /** How long the body of a request refused on its headers alone (401) is still read. */
  refusedBodyLingerMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  // Above the 60 s idle timeout of common load balancers, so they close first.
  keepAliveTimeoutMs: 65_000,
  checkIntervalMs: 1_000,
  bodyIdleTimeoutMs: 10_000,
  refusedBodyLingerMs: 1_000,
};

export function httpServerOptions(timeouts: Partial<HttpTimeouts> = {}): ServerOptions {
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  return {
    headersTimeout: t.headersTimeoutMs,
    requestTimeout: t.requestTimeoutMs,
    keepAliveTimeout: t.keepAliveTimeoutMs,
    connectionsCheckingInterval: t.checkIntervalMs,
  };
}
