import type { DeliveryOutcome, WebhookDeliveryRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";
import { backoffDelay } from "../../shared/backoff";
import { categorizeStatus } from "./failure-category";
import type { Outcome } from "./post-delivery";

/**
 * What an attempt leaves on its row: succeeded, failed for good, or pending with the next retry
 * time. Counts and logs the attempt; the caller writes the row (`OutcomeWriter`).
 */
export function outcomeOf(
  deps: Pick<CoreDeps, "log" | "metrics" | "now"> & {
    config: Pick<CoreConfig, "webhookBackoffBaseMs" | "webhookBackoffMaxMs" | "webhookMaxAttempts">;
  },
  row: WebhookDeliveryRow,
  outcome: Exclude<Outcome, { kind: "interrupted" }>,
): DeliveryOutcome {
  const now = deps.now();
  const attempts = row.attempts + 1;
  const statusCode = outcome.kind === "answered" ? outcome.statusCode : null;
  const log = { deliveryId: row.id, webhookId: row.webhookId, attempts, statusCode };
  const base = { seq: row.seq, attempts, lastStatusCode: statusCode, updatedAt: now };
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    deps.metrics?.webhookAttempt("succeeded");
    deps.log.debug(log, "webhook delivered");
    return {
      ...base,
      status: "succeeded",
      nextAttemptAt: row.nextAttemptAt,
      lastError: null,
      completedAt: now,
    };
  }
  const lastError =
    outcome.kind === "failed" ? outcome.category : categorizeStatus(statusCode ?? 0);
  if (attempts >= deps.config.webhookMaxAttempts) {
    deps.metrics?.webhookAttempt("failed");
    deps.log.warn({ ...log, reason: lastError }, "webhook delivery failed for good");
    return {
      ...base,
      status: "failed",
      nextAttemptAt: row.nextAttemptAt,
      lastError,
      completedAt: now,
    };
  }
  const delay = backoffDelay(
    attempts,
    deps.config.webhookBackoffBaseMs,
    deps.config.webhookBackoffMaxMs,
  );
  deps.metrics?.webhookAttempt("retry");
  deps.log.info(
    { ...log, reason: lastError, retryInMs: delay },
    "webhook delivery will be retried",
  );
  return { ...base, status: "pending", nextAttemptAt: now + delay, lastError, completedAt: null };
}

/** A claimed row given back as it was: not attempted, due again once its claim is gone. */
export function unsent(row: WebhookDeliveryRow): DeliveryOutcome {
  const { seq, status, attempts, nextAttemptAt, lastStatusCode, lastError, completedAt } = row;
  return {
    seq,
    status,
    attempts,
    nextAttemptAt,
    lastStatusCode,
    lastError,
    completedAt,
    updatedAt: row.updatedAt,
  };
}
