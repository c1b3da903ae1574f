import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "./config-error";

/**
 * Makes sure DATA_DIR is a writable directory (creating it when missing) before anything is
 * written there, so a wrong path is one clear line instead of a failure deep in SQLite.
 */
export function prepareDataDir(dir: string): string {
  const resolved = path.resolve(dir);
  const stat = statSync(resolved, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) {
    throw new ConfigError(
      `DATA_DIR ${resolved} is not a directory (it is a file); point DATA_DIR at a directory`,
    );
  }
  try {
    mkdirSync(resolved, { recursive: true });
    accessSync(resolved, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError(
      `DATA_DIR ${resolved} cannot be created or written (${code}); choose a writable directory`,
    );
  }
  return resolved;
}
