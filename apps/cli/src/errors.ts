import { describeClientError } from "@sandbox-server/client";

/** A failure the command explains itself; printed as its message alone. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/**
 * One line for any failure: the server's message with its code and status, or what went wrong
 * locally. Never a stack trace.
 */
export function errorLine(error: unknown, serverUrl: string): string {
  const info = describeClientError(error);
  switch (info.code) {
    case "ERROR":
      return info.message.split("\n")[0] ?? "";
    case "NETWORK_ERROR":
      return `${info.message} at ${serverUrl}; is it running? (start it with \`sandbox-server start\`, or set SANDBOX_SERVER_URL)`;
    case "BAD_RESPONSE":
      return `${serverUrl} did not answer as a Sandbox Server does (${info.message}); check SANDBOX_SERVER_URL`;
    default: {
      const issue = info.issues?.[0];
      const where = issue ? ` [${issue.path.join(".") || "input"}: ${issue.message}]` : "";
      return `${info.message}${where} (${info.code}, HTTP ${info.status})`;
    }
  }
}
