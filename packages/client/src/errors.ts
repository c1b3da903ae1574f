import { TRPCClientError } from "@trpc/client";
import type { SandboxErrorData, SandboxErrorIssue } from "./app-router";

/** A failed call in one shape, whatever failed: the server, the network or the response. */
export interface SandboxErrorInfo {
  /**
   * The server's stable code (e.g. `SANDBOX_NOT_FOUND`), or `NETWORK_ERROR` when the server could
   * not be reached, `BAD_RESPONSE` when what answered is not a Sandbox Server, `ERROR` otherwise.
   */
  code: string;
  /** The HTTP status the server answered; null when no server answered. */
  status: number | null;
  message: string;
  issues?: SandboxErrorIssue[];
}

function isErrorData(data: unknown): data is SandboxErrorData {
  return (
    typeof data === "object" &&
    data !== null &&
    typeof (data as SandboxErrorData).code === "string" &&
    typeof (data as SandboxErrorData).httpStatus === "number"
  );
}

/** The innermost `cause` code of a failed fetch, e.g. `ECONNREFUSED`. */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = current.cause;
  }
  return undefined;
}

/** Describes any error a client call threw, for a person or a log line. */
export function describeClientError(error: unknown): SandboxErrorInfo {
  if (error instanceof TRPCClientError) {
    const data: unknown = error.data;
    if (isErrorData(data)) {
      return {
        code: data.code,
        status: data.httpStatus,
        message: error.message,
        ...(data.issues ? { issues: data.issues } : {}),
      };
    }
    const cause = causeCode(error.cause);
    if (cause || error.cause instanceof TypeError) {
      return {
        code: "NETWORK_ERROR",
        status: null,
        message: `cannot reach the server${cause ? ` (${cause})` : ""}`,
      };
    }
    return { code: "BAD_RESPONSE", status: null, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: "ERROR", status: null, message };
}
