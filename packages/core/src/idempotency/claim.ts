import type { Repositories } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../deps";

/** How long a key is kept: the same key within a day replays the first answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long one create can run at most (a conversation's create waits for its sandbox's start and
 * then for its agent server). A record still in progress after this, run by no request of this
 * process, was abandoned: its process died mid-create.
 */
/** The timeouts a create's bound adds up. */
export type CreateBoundConfig = Pick<
  CoreConfig,
  "sandboxStartTimeoutMs" | "conversationStartTimeoutMs" | "agentRequestTimeoutMs"
>;

export function createBoundMs(config: CreateBoundConfig): number {
  return (
    config.sandboxStartTimeoutMs + config.conversationStartTimeoutMs + config.agentRequestTimeoutMs
  );
}

export type Claim =
  /** The key is ours: run the create, then `completeClaim` or `releaseClaim`. */
  | { kind: "claimed"; id: string }
  /** An earlier request with this key and body answered this. */
  | { kind: "completed"; status: number; body: unknown }
  /** An earlier request with this key and body is still running. */
  | { kind: "in_progress"; id: string }
  /** The key was used with another request. */
  | { kind: "reused" };

export interface ClaimRequest {
  /** The new record's id, used when the key is free. */
  id: string;
  userId: string;
  key: string;
  requestHash: string;
  /** Whether a request of this process is running the record's create right now. */
  runningHere: (id: string) => boolean;
}

/**
 * Looks the key up and, when it is free, records it `in_progress`, in one transaction (transactions
 * are serialised, so of two identical requests exactly one claims). Expired records go first.
 */
export function claimKey(
  deps: Pick<CoreDeps, "now" | "transaction"> & { config: CreateBoundConfig },
  request: ClaimRequest,
): Promise<Claim> {
  const now = deps.now();
  return deps.transaction(async (tx): Promise<Claim> => {
    await tx.idempotencyKeys.removeCreatedBefore(now - IDEMPOTENCY_TTL_MS);
    const existing = await tx.idempotencyKeys.get(request.userId, request.key);
    if (existing) {
      const abandoned =
        existing.status === "in_progress" &&
        !request.runningHere(existing.id) &&
        existing.createdAt < now - createBoundMs(deps.config);
      if (!abandoned) {
        if (existing.requestHash !== request.requestHash) return { kind: "reused" };
        if (existing.status === "completed" && existing.responseBody !== null) {
          const body: unknown = JSON.parse(existing.responseBody);
          return { kind: "completed", status: existing.responseStatus ?? 200, body };
        }
        return { kind: "in_progress", id: existing.id };
      }
      await tx.idempotencyKeys.remove(existing.id);
    }
    const { id } = request;
    await tx.idempotencyKeys.insert({
      id,
      userId: request.userId,
      key: request.key,
      requestHash: request.requestHash,
      status: "in_progress",
      responseStatus: null,
      responseBody: null,
      createdAt: now,
    });
    return { kind: "claimed", id };
  });
}

/**
 * Stores the create's answer: later requests with the key replay it. `repos` is a transaction's
 * when the answer must be kept together with what the create recorded.
 */
export async function completeClaim(
  repos: Pick<Repositories, "idempotencyKeys">,
  id: string,
  status: number,
  body: unknown,
): Promise<void> {
  await repos.idempotencyKeys.complete(id, status, JSON.stringify(body ?? null));
}

/** The create failed: the key is free again (errors are not replayed; a retry runs anew). */
export async function releaseClaim(
  repos: Pick<Repositories, "idempotencyKeys">,
  id: string,
): Promise<void> {
  await repos.idempotencyKeys.remove(id);
}
