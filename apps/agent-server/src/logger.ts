/**
 * Structured JSON lines on stderr (stdout carries only the startup line). Callers pass chosen
 * fields; never session keys, API keys or message contents.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export function createLogger(
  level: LogLevel = "info",
  bound: LogFields = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const log = (at: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (rank[at] < rank[level]) return;
    const entry = { level: at, time: new Date().toISOString(), msg, ...bound, ...fields };
    write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (msg, fields) => log("debug", msg, fields),
    info: (msg, fields) => log("info", msg, fields),
    warn: (msg, fields) => log("warn", msg, fields),
    error: (msg, fields) => log("error", msg, fields),
    child: (fields) => createLogger(level, { ...bound, ...fields }, write),
  };
}

export const silentLogger: Logger = createLogger("silent");

/** The message of an unknown thrown value, for logs only. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
