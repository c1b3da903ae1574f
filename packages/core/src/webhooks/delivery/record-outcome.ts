import type { WebhookDeliveryRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { backoffDelay } from "../../shared/backoff";
import { categorizeStatus } from "./failure-category";
import type { Outcome } from "./post-delivery";

/** Stores an attempt's outcome: succeeded, failed for good, or pending with the next retry time. */
export async function recordOutcome(
  deps: CoreDeps,
  row: WebhookDeliveryRow,
  outcome: Exclude<Outcome, { kind: "interrupted" }>,
): Promise<void> {
  const now = deps.now();
  const attempts = row.attempts + 1;
  const statusCode = outcome.kind === "answered" ? outcome.statusCode : null;
  const log = { deliveryId: row.id, webhookId: row.webhookId, attempts, statusCode };
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    await deps.repos.webhookDeliveries.update(row.seq, {
      status: "succeeded",
      attempts,
      lastStatusCode: statusCode,
      lastError: null,
      completedAt: now,
      updatedAt: now,
    });
    deps.metrics?.webhookAttempt("succeeded");
    deps.log.debug(log, "webhook delivered");
    return;
  }
  const lastError =
    outcome.kind === "failed" ? outcome.category : categorizeStatus(statusCode ?? 0);
  if (attempts >= deps.config.webhookMaxAttempts) {
    await deps.repos.webhookDeliveries.update(row.seq, {
      status: "failed",
      attempts,
      lastStatusCode: statusCode,
      lastError,
      completedAt: now,
      updatedAt: now,
    });
    deps.metrics?.webhookAttempt("failed");
    deps.log.warn({ ...log, reason: lastError }, "webhook delivery failed for good");
    return;
  }
  const delay = backoffDelay(
    attempts,
    deps.config.webhookBackoffBaseMs,
    deps.config.webhookBackoffMaxMs,
  );
  await deps.repos.webhookDeliveries.update(row.seq, {
    attempts,
    lastStatusCode: statusCode,
    lastError,
    nextAttemptAt: now + delay,
    updatedAt: now,
  });
  deps.metrics?.webhookAttempt("retry");
  deps.log.info(
    { ...log, reason: lastError, retryInMs: delay },
    "webhook delivery will be retried",
  );
}
