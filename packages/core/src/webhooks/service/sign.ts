import { createHmac } from "node:crypto";

/** `sha256=` + hex HMAC-SHA256 of `<timestamp>.<body>` under the webhook's secret. */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}
