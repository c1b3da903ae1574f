import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A request as our handlers see it, whether express routed it or the server's front handed it on
 * directly (`app.ts`): Node's message plus its request id once it has one (`requestIdOf`). `originalUrl` is
 * express's (the URL before a mount stripped its prefix); absent, `url` is the whole URL.
 */
export type HttpRequest = IncomingMessage & { id?: string; originalUrl?: string };

export type HttpResponse = ServerResponse;

/** A middleware that needs nothing of express: it runs in express and in the front alike. */
export type HttpMiddleware = (req: HttpRequest, res: HttpResponse, next: () => void) => void;

/** The path of a request's URL, without its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}
