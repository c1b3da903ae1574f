/** dockerode rejects with the daemon's HTTP status on the error; these read it safely. */
import { errorMessage } from "../error-message";

export function dockerStatusCode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || !("statusCode" in error)) return undefined;
  return typeof error.statusCode === "number" ? error.statusCode : undefined;
}

export function isNotFound(error: unknown): boolean {
  return dockerStatusCode(error) === 404;
}

/** The daemon's own message (`{"message": ...}`) when there is one, else the error's. */
export function describeDockerError(error: unknown): string {
  if (typeof error === "object" && error !== null && "json" in error) {
    const json = error.json;
    if (typeof json === "object" && json !== null && "message" in json) {
      if (typeof json.message === "string") return json.message;
    }
  }
  return errorMessage(error);
}
