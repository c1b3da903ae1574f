import type { WebhookDeliveryRow, WebhookRow } from "@sandbox-server/db";
import { type Dispatcher, request } from "undici";
import { signDelivery } from "../service/sign";
import { splitCredentials } from "../service/url-credentials";
import { categorizeError, type FailureCategory } from "./failure-category";

export type Outcome =
  | { kind: "answered"; statusCode: number }
  | { kind: "failed"; category: FailureCategory }
  /** The worker is stopping: the attempt does not count and the row stays pending. */
  | { kind: "interrupted" };

const USER_AGENT = "sandbox-server-webhooks/1";

export interface PostOptions {
  dispatcher: Dispatcher;
  timeoutMs: number;
  /** Aborted when the worker stops. */
  stopping: AbortSignal;
  now: number;
}

/**
 * One attempt: POSTs the delivery's payload, signed in the Standard Webhooks format, to the
 * webhook's URL through `dispatcher` (whose connector vets every destination). Credentials in the
 * URL go as Basic authentication.
 *
 * The attempt's own controller ends it at `timeoutMs` or when the worker stops; its timer and its
 * listener on `stopping` go when the attempt does. (`AbortSignal.any` with the worker's long-lived
 * signal would leave an entry per attempt in that signal for as long as the worker runs, and
 * `AbortSignal.timeout` a live timer per attempt for the whole timeout.)
 */
export async function postDelivery(
  hook: WebhookRow,
  row: WebhookDeliveryRow,
  options: PostOptions,
): Promise<Outcome> {
  const timestamp = String(Math.floor(options.now / 1000));
  const attempt = new AbortController();
  const abort = () => attempt.abort();
  const timer = setTimeout(
    () => attempt.abort(new DOMException("the receiver did not answer in time", "TimeoutError")),
    options.timeoutMs,
  );
  options.stopping.addEventListener("abort", abort);
  if (options.stopping.aborted) abort();
  try {
    const { url, authorization } = splitCredentials(hook.url);
    const response = await request(url, {
      method: "POST",
      dispatcher: options.dispatcher,
      headers: {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        ...(authorization ? { authorization } : {}),
        // Standard Webhooks: the id is the delivery's, the same on every attempt.
        "webhook-id": row.id,
        "webhook-timestamp": timestamp,
        "webhook-signature": signDelivery(hook.secret, row.id, timestamp, row.payload),
      },
      body: row.payload,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      signal: attempt.signal,
    });
    await response.body.dump().catch(() => undefined);
    return { kind: "answered", statusCode: response.statusCode };
  } catch (error) {
    if (options.stopping.aborted) return { kind: "interrupted" };
    return { kind: "failed", category: categorizeError(error) };
  } finally {
    clearTimeout(timer);
    options.stopping.removeEventListener("abort", abort);
  }
}
