import fs from "node:fs";
import path from "node:path";
import { AppError } from "../errors";
import { errnoOf, fsErrorToAppError } from "./fs-errors";

/**
 * `mkdir -p` for paths that come from requests: every failure is an AppError (a NUL, a parent
 * that is a file, a read-only or refusing file system), never a crash or a 500. Levels are created
 * one at a time: Node's recursive mkdir never returns on file systems that refuse new entries
 * (procfs), which would block the whole server.
 */
export function ensureDirectory(dir: string): void {
  if (dir.includes("\0")) throw new AppError("BAD_REQUEST", "path must not contain NUL");
  const missing: string[] = [];
  let existing = path.resolve(dir);
  while (!exists(existing)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  if (!isDirectory(existing))
    throw new AppError("BAD_REQUEST", "A parent of path is not a directory");
  createLevels(existing, missing);
}

/** Creates `missing` under the existing directory `parent`; returns the deepest one. */
export function createLevels(parent: string, missing: readonly string[]): string {
  let dir = parent;
  for (const name of missing) {
    dir = path.join(dir, name);
    try {
      fs.mkdirSync(dir);
    } catch (error) {
      // Created meanwhile by someone else: fine when it is a directory.
      if (errnoOf(error) === "EEXIST" && isDirectory(dir)) continue;
      throw fsErrorToAppError(error, "write");
    }
  }
  return dir;
}

/** False for ENOENT and ENOTDIR (an ancestor is a file: walking up finds it). */
export function exists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw fsErrorToAppError(error, "write");
  }
}

export function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
