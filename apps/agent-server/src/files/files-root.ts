import fs from "node:fs";
import path from "node:path";
import { AppError } from "../errors";
import { createLevels, exists, isDirectory } from "./ensure-directory";
import { fsErrorToAppError } from "./fs-errors";

/**
 * Confinement of the file routes to one directory (FILES_ROOT, realpath taken at start). Paths
 * arrive absolute and normalised (`..` already resolved, see file-path.ts); here symlinks are
 * resolved with realpath on the part of the path that exists, and the result must lie inside the
 * root. The routes then use the resolved path, not the one given.
 *
 * Inside a sandbox (bubblewrap, container) this server's view of the file system is already
 * confined; the root narrows it further. A process that can change the tree at the same moment
 * could still swap a checked directory for a symlink before the file is opened: the sandbox, not
 * this check, is the security boundary against the sandbox's own processes.
 */
export function resolveForRead(root: string, requested: string): string {
  let real: string;
  try {
    real = fs.realpathSync(requested);
  } catch (error) {
    throw fsErrorToAppError(error, "read");
  }
  assertInside(root, real);
  return real;
}

/**
 * The real path to write `requested` to: its parent resolved (and created, inside the root), its
 * last part kept as given, so an existing symlink there is replaced rather than followed.
 */
export function resolveForWrite(root: string, requested: string): string {
  const name = path.basename(requested);
  if (name === "") throw new AppError("BAD_REQUEST", "path is a directory");
  // Walk up to the deepest ancestor that exists; the rest will be created under its real path.
  let existing = path.dirname(requested);
  const missing: string[] = [];
  while (!exists(existing)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let parent: string;
  try {
    parent = fs.realpathSync(existing);
  } catch (error) {
    throw fsErrorToAppError(error, "write");
  }
  assertInside(root, parent);
  if (!isDirectory(parent))
    throw new AppError("BAD_REQUEST", "A parent of path is not a directory");
  const dir = createLevels(parent, missing);
  const target = path.join(dir, name);
  let current: fs.Stats | undefined;
  try {
    current = fs.lstatSync(target, { throwIfNoEntry: false });
  } catch (error) {
    throw fsErrorToAppError(error, "write");
  }
  if (current?.isDirectory()) throw new AppError("BAD_REQUEST", "path is a directory");
  // Replacing a device, socket or pipe with a file is never what an upload means.
  if (current && !current.isFile() && !current.isSymbolicLink()) {
    throw new AppError("BAD_REQUEST", "path is not a regular file");
  }
  return target;
}

/** Realpath of the configured root; start fails when it does not exist. */
export function realFilesRoot(root: string): string {
  return fs.realpathSync(root);
}

function assertInside(root: string, real: string): void {
  const relative = path.relative(root, real);
  const inside =
    relative === "" ||
    (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
  if (!inside) throw new AppError("FORBIDDEN", "path is outside the files root");
}
