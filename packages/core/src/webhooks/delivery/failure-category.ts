import { DestinationRefused } from "../destination/checked-connector";
import { DnsFailure } from "../destination/destination-policy";

/**
 * Why an attempt failed, as a short category: what a delivery's `last_error` says. Never an
 * internal message or an address, so the deliveries list is no probe of the server's network.
 */
export const failureCategories = [
  "destination_refused",
  "dns_failed",
  "connect_refused",
  "connection_reset",
  "timeout",
  "tls_error",
  "network_error",
  "http_3xx",
  "http_4xx",
  "http_5xx",
  "http_error",
] as const;
export type FailureCategory = (typeof failureCategories)[number];

/** The category of a receiver's non-2xx answer (redirects are not followed: 3xx is a failure). */
export function categorizeStatus(status: number): FailureCategory {
  if (status >= 300 && status < 400) return "http_3xx";
  if (status >= 400 && status < 500) return "http_4xx";
  if (status >= 500 && status < 600) return "http_5xx";
  return "http_error";
}

const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "ENODATA"]);

/** The category of an attempt that got no answer, from the error (or one it wraps). */
export function categorizeError(error: unknown): FailureCategory {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    const found = categoryOf(cause);
    if (found) return found;
    cause = (cause as { cause?: unknown }).cause;
  }
  return "network_error";
}

function categoryOf(error: unknown): FailureCategory | null {
  if (error instanceof DestinationRefused) return "destination_refused";
  if (error instanceof DnsFailure) return "dns_failed";
  const { code = "", name = "" } = error as { code?: unknown; name?: unknown };
  const c = String(code);
  if (name === "TimeoutError" || TIMEOUT_CODES.has(c)) return "timeout";
  if (c === "ECONNREFUSED") return "connect_refused";
  if (DNS_CODES.has(c)) return "dns_failed";
  if (RESET_CODES.has(c)) return "connection_reset";
  if (
    c === "EPROTO" ||
    c.startsWith("ERR_TLS_") ||
    c.startsWith("ERR_SSL_") ||
    /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(c)
  ) {
    return "tls_error";
  }
  return null;
}

/** A stored `last_error` as a category; rows written before categories existed are mapped. */
export function storedCategory(
  lastError: string | null,
  lastStatusCode: number | null,
): FailureCategory | null {
  if (lastError === null) return null;
  if ((failureCategories as readonly string[]).includes(lastError)) {
    return lastError as FailureCategory;
  }
  return lastStatusCode !== null ? categorizeStatus(lastStatusCode) : "network_error";
}
