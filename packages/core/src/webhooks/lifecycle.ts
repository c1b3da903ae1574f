import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { SandboxStatusChange } from "../core-events";
import type { CoreDeps } from "../deps";
import { newId } from "../shared/ids";
import { iso } from "../shared/time";
import { queueDeliveries } from "./service/queue-deliveries";

/**
 * Queues one sandbox event (`sandbox.*`) for the owner's webhooks. Runs after what it reports
 * (a lifecycle move, a refused connection): a failure here is logged and never reaches that.
 */
export async function queueSandboxEvent(
  deps: Pick<CoreDeps, "events" | "log" | "now" | "repos" | "transaction">,
  sandbox: Pick<SandboxRow, "id" | "ownerId">,
  kind: string,
  data: Record<string, unknown>,
): Promise<void> {
  try {
    const occurrence = {
      ownerId: sandbox.ownerId,
      stream: `sandbox:${sandbox.id}`,
      payload: {
        event_id: newId("evt"),
        kind,
        occurred_at: iso(deps.now()),
        sandbox_id: sandbox.id,
        conversation_id: null,
        data,
      },
    };
    const queued = await deps.transaction((tx) => queueDeliveries(deps, occurrence, tx));
    if (queued > 0) deps.events.emit("webhooks.queued");
  } catch (error) {
    deps.log.error(
      { sandboxId: sandbox.id, kind, reason: errorMessage(error) },
      "queueing a sandbox webhook failed",
    );
  }
}

/**
 * Queues sandbox lifecycle events (`sandbox.status_changed`, `sandbox.deleted`, and the throttled
 * `sandbox.egress_denied`) for the owner's webhooks as they happen. Returns the function that stops watching.
 */
export function watchSandboxLifecycle(
  deps: Pick<CoreDeps, "events" | "log" | "now" | "repos" | "transaction">,
): () => void {
  const queue = (
    sandbox: Pick<SandboxRow, "id" | "ownerId">,
    kind: string,
    data: Record<string, unknown>,
  ) => queueSandboxEvent(deps, sandbox, kind, data);
  const onStatus = ({ sandbox, previousStatus }: SandboxStatusChange) =>
    void queue(sandbox, "sandbox.status_changed", {
      sandbox_id: sandbox.id,
      status: sandbox.status,
      previous_status: previousStatus,
      status_detail: sandbox.statusDetail,
    });
  const onDeleted = (sandbox: SandboxRow) =>
    void queue(sandbox, "sandbox.deleted", { sandbox_id: sandbox.id });
  const onDenied = (sandbox: Pick<SandboxRow, "id" | "ownerId">, data: Record<string, unknown>) =>
    void queue(sandbox, "sandbox.egress_denied", data);
  deps.events.on("sandbox.status_changed", onStatus);
  deps.events.on("sandbox.egress_denied", onDenied);
  deps.events.on("sandbox.deleted", onDeleted);
  return () => {
    deps.events.off("sandbox.status_changed", onStatus);
    deps.events.off("sandbox.egress_denied", onDenied);
    deps.events.off("sandbox.deleted", onDeleted);
  };
}
