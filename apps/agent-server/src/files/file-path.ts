import path from "node:path";
import { AppError } from "../errors";
import type { Query } from "../http/router";

/**
 * The target of an upload or download: `?path=` (ours) or the rest of the URL (upstream's
 * `/api/file/upload/{path}`). Only absolute paths, as upstream requires; `..` is resolved here,
 * so `/a/b/../c` is `/a/c` whatever `b` is.
 */
export function filePathOf(query: Query, rest: string[] | undefined): string {
  const fromQuery = query.path;
  const candidate = typeof fromQuery === "string" ? fromQuery : rest ? `/${rest.join("/")}` : "";
  if (!candidate) throw new AppError("BAD_REQUEST", "path is required");
  if (candidate.includes("\0")) throw new AppError("BAD_REQUEST", "path must not contain NUL");
  if (!path.isAbsolute(candidate)) throw new AppError("BAD_REQUEST", "path must be absolute");
  return path.normalize(candidate);
}
