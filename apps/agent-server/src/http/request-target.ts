import { AppError } from "../errors";
import type { Query } from "./router";

export interface RequestTarget {
  /** Decoded path segments, empty ones dropped (`/a//b/` is `a`, `b`). */
  segments: string[];
  query: Query;
}

/**
 * Splits a request URL into decoded path segments and the query. Parsed by hand rather than with
 * `new URL`, which would read `//host/path` as a host; a bad percent-escape is 400.
 */
export function parseTarget(url: string): RequestTarget {
  const mark = url.indexOf("?");
  const pathname = mark < 0 ? url : url.slice(0, mark);
  const segments: string[] = [];
  for (const part of pathname.split("/")) {
    if (part === "") continue;
    try {
      segments.push(decodeURIComponent(part));
    } catch {
      throw new AppError("BAD_REQUEST", "Malformed percent-encoding in the path");
    }
  }
  const query: Query = {};
  if (mark < 0) return { segments, query };
  for (const [key, value] of new URLSearchParams(url.slice(mark + 1))) {
    const previous = query[key];
    if (previous === undefined) query[key] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else query[key] = [previous, value];
  }
  return { segments, query };
}
