import { AppError, type ErrorCode } from "./errors";

/** How a send-message ended, as counted. */
export type ForwardOutcome =
  | "delivered"
  | "agent_rejected"
  | "unavailable"
  | "refused_not_running"
  | "refused_archived"
  | "not_found"
  | "error";

/** How one webhook delivery attempt ended. */
export type DeliveryOutcome = "succeeded" | "retry" | "failed";

/**
 * What the core reports to a metrics system (the server's Prometheus registry). Each call is a
 * counter increment or one observation: cheap enough for the request path. Absent from
 * `CoreDeps` when nobody collects.
 */
export interface CoreMetrics {
  forward(outcome: ForwardOutcome): void;
  webhookAttempt(outcome: DeliveryOutcome): void;
  /** Seconds between an event's own timestamp and when the control plane stored it. */
  eventStored(lagSeconds: number): void;
  /** A connection of the sandbox that its runtime's egress enforcer refused. */
  egressDenied(sandboxId: string): void;
  /** The sandbox is gone: its per-sandbox series go too. */
  sandboxDeleted(sandboxId: string): void;
}

const forwardOutcomes: Partial<Record<ErrorCode, ForwardOutcome>> = {
  AGENT_SERVER_REJECTED: "agent_rejected",
  SANDBOX_UNAVAILABLE: "unavailable",
  SANDBOX_NOT_RUNNING: "refused_not_running",
  CONVERSATION_ARCHIVED: "refused_archived",
  CONVERSATION_NOT_FOUND: "not_found",
  SANDBOX_NOT_FOUND: "not_found",
};

/** Counts how a send-message ended (by its answer, so the verb itself stays untouched). */
export async function countForward<T>(
  metrics: CoreMetrics | undefined,
  sending: Promise<T>,
): Promise<T> {
  if (!metrics) return sending;
  try {
    const answer = await sending;
    metrics.forward("delivered");
    return answer;
  } catch (error) {
    metrics.forward((error instanceof AppError && forwardOutcomes[error.code]) || "error");
    throw error;
  }
}
