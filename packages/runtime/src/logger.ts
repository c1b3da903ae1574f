import type { RuntimeLogger } from "./types";

/** Logs nothing: a runtime's default where no logger is passed. */
export const silentLogger: RuntimeLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
};
