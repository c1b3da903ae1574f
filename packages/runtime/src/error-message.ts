/**
 * The message of an unknown thrown value, for logs and status details. The one helper for the
 * control plane (runtime, core, server); the agent server and the published client, which do not
 * depend on this package, each keep a one-line equivalent. Outside this package it is imported
 * through its own subpath, `@sandbox-server/runtime/error-message`, so that code that needs only it
 * (the core's ingest worker) does not load the runtimes.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
