import { procedureMetas } from "@sandbox-server/core";
import type { HttpMiddleware, HttpRequest, HttpResponse } from "../http/http-types";
import { pathOf } from "../http/http-types";
import type { RouteTable } from "../http/rest/route-table";
import type { ServerMetrics } from "./registry";

export const API_PREFIX = "/api/v1";
/** Fixed routes outside the REST table, labelled as themselves. */
const FIXED = new Set(["/", "/health", "/alive", "/ready", "/metrics", "/api/v1/openapi.json"]);

export interface RequestTimer {
  /** For express: labels the request when it finishes (one trie lookup then). */
  middleware: HttpMiddleware;
  /** For a request whose route label is already known (the REST front matched it). */
  time(req: HttpRequest, res: HttpResponse, route: string): void;
}

/**
 * Times every request and labels it with its route pattern, never the raw path (ids would make
 * one series per sandbox): a REST operation's declared path (`/api/v1/sandboxes/{id}`), a tRPC
 * procedure's path (`trpc:sandboxes.start`), a fixed route, or `unmatched`. Only the finish
 * callback does work: one histogram observation.
 */
export function httpMetrics(metrics: ServerMetrics, routes: RouteTable): RequestTimer {
  const procedures = new Set(procedureMetas().keys());
  const routeOf = (req: HttpRequest): string => {
    // originalUrl: a mounted handler that answers leaves req.url without its mount path.
    const path = pathOf(req.originalUrl ?? req.url ?? "");
    if (path.startsWith(`${API_PREFIX}/`) && path !== "/api/v1/openapi.json") {
      const match = routes.match(req.method ?? "", path.slice(API_PREFIX.length));
      return match.kind === "found" ? `${API_PREFIX}${match.route.path}` : "unmatched";
    }
    if (path.startsWith("/trpc/")) {
      const names = path.slice("/trpc/".length).split(",");
      if (names.length > 1) return "trpc:batch";
      return procedures.has(names[0] ?? "") ? `trpc:${names[0]}` : "trpc:unknown";
    }
    if (FIXED.has(path)) return path;
    if (path === "/docs" || path.startsWith("/docs/")) return "/docs";
    return "unmatched";
  };
  const observe = (req: HttpRequest, res: HttpResponse, route: string | null) => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeRequest(req.method ?? "", route ?? routeOf(req), res.statusCode, seconds);
    });
  };
  return {
    middleware(req, res, next) {
      observe(req, res, null);
      next();
    },
    time: observe,
  };
}
