import type { RuntimeLogger } from "@sandbox-server/runtime";

/**
 * The slice of pino the core logs through (the server passes its pino instance): the runtimes'
 * logger, which the same instance also serves, plus binding fields per request or worker. The
 * agent server, a separate deployable with no control-plane dependencies, keeps its own logger.
 */
export interface Logger extends RuntimeLogger {
  child(bindings: Record<string, unknown>): Logger;
}

/** Logs nothing: the default where no logger is passed (the core in tests). */
export const silentLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child() {
    return silentLogger;
  },
};
