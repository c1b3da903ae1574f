import type { IncomingMessage, ServerResponse } from "node:http";

export type Query = Record<string, string | string[]>;

/** A request as the route handlers see it. */
export interface ApiRequest {
  raw: IncomingMessage;
  params: Record<string, string>;
  /** The decoded segments a trailing `*name` pattern matched, when it matched any. */
  rest: string[] | undefined;
  /** Repeated keys become lists (`ids=a&ids=b`). */
  query: Query;
  /** The parsed JSON body of a `json` route; undefined without a JSON body. */
  body: unknown;
}

export type Handler = (req: ApiRequest, res: ServerResponse) => void | Promise<void>;

/** `json`: the body is read (bounded) and parsed before the handler; `stream`: left to it. */
export type BodyMode = "json" | "stream";

export interface Route {
  method: string;
  handler: Handler;
  body: BodyMode;
  segments: readonly string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
  rest: string[] | undefined;
}

/**
 * A small router: patterns are `/literal/:param/*rest`, matched segment by segment against the
 * decoded path, in the order they were added. HEAD is served by GET routes.
 */
export class Router {
  private readonly routes: Route[] = [];

  get(pattern: string, handler: Handler): void {
    this.add("GET", pattern, handler, "json");
  }

  post(pattern: string, handler: Handler, body: BodyMode = "json"): void {
    this.add("POST", pattern, handler, body);
  }

  patch(pattern: string, handler: Handler): void {
    this.add("PATCH", pattern, handler, "json");
  }

  delete(pattern: string, handler: Handler): void {
    this.add("DELETE", pattern, handler, "json");
  }

  match(method: string, segments: readonly string[]): RouteMatch | undefined {
    const wanted = method === "HEAD" ? "GET" : method;
    for (const route of this.routes) {
      if (route.method !== wanted) continue;
      const found = matchSegments(route.segments, segments);
      if (found) return { route, ...found };
    }
    return undefined;
  }

  private add(method: string, pattern: string, handler: Handler, body: BodyMode): void {
    this.routes.push({ method, handler, body, segments: pattern.split("/").filter(Boolean) });
  }
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Omit<RouteMatch, "route"> | undefined {
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    if (part.startsWith("*")) {
      const rest = segments.slice(index);
      return rest.length > 0 ? { params, rest } : undefined;
    }
    const segment = segments[index];
    if (segment === undefined) return undefined;
    if (part.startsWith(":")) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return segments.length === pattern.length ? { params, rest: undefined } : undefined;
}
