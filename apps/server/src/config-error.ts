/**
 * A configuration problem a person can fix: printed as one line (no stack) and the process exits
 * with status 2. Thrown at the edge (env, data directory, Docker endpoint), never by libraries.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export const CONFIG_ERROR_EXIT_CODE = 2;

/** Writes `sandbox-server: <message>` and exits; the one way a bad configuration ends start-up. */
export function exitWithConfigError(error: ConfigError): never {
  process.stderr.write(`sandbox-server: ${error.message}\n`);
  process.exit(CONFIG_ERROR_EXIT_CODE);
}
