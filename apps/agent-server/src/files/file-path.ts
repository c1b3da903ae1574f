import path from "node:path";
import { AppError } from "../errors";

/**
 * The target of an upload or download: `?path=` (ours) or the rest of the URL (upstream's
 * `/api/file/upload/{path}`). Only absolute paths, as upstream requires.
 */
export function filePathOf(query: unknown, rest: unknown): string {
  const fromQuery = (query as { path?: unknown } | undefined)?.path;
  const fromRest = Array.isArray(rest) ? `/${rest.join("/")}` : undefined;
  const candidate = typeof fromQuery === "string" ? fromQuery : fromRest;
  if (!candidate) throw new AppError("BAD_REQUEST", "path is required");
  if (!path.isAbsolute(candidate)) throw new AppError("BAD_REQUEST", "path must be absolute");
  return path.normalize(candidate);
}
