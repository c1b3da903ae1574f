import type { RuntimeLogger } from "./types";

/**
 * The slice of pino the control plane's libraries log through (the server passes its pino
 * instance): a `RuntimeLogger` that can bind fields. The agent server, a separate deployable with
 * no control-plane dependencies, keeps its own small JSON logger.
 */
export interface Logger extends RuntimeLogger {
  child(bindings: Record<string, unknown>): Logger;
}

/** Logs nothing: the default where no logger is passed (runtimes, the core in tests). */
export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child() {
    return silentLogger;
  },
};
