import type { Session } from "./connection";
import type { Output } from "./output";

/** What every command gets: the server session, where to print, and the process's surroundings. */
export interface CommandContext {
  session: Session;
  out: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C, so long waits and follows end cleanly. */
  signal: AbortSignal;
}

export interface JsonOption {
  json?: boolean;
}
