import type { SandboxRow } from "@sandbox-server/db";
import type { EgressDenial } from "@sandbox-server/egress";
import type { CoreDeps } from "../../deps";
import { iso } from "../../shared/time";
import { EGRESS_PULL_INTERVAL_MS, EgressDenialPuller } from "./egress-denial-pull";

/** At most one `sandbox.egress_denied` per sandbox and destination in this window. */
export const EGRESS_EVENT_WINDOW_MS = 60_000;
/** Destinations remembered per sandbox; past it the oldest is forgotten (reported afresh). */
const MAX_DESTINATIONS = 256;

/** The data of one `sandbox.egress_denied` event. */
export interface EgressDeniedData {
  sandbox_id: string;
  destination: string;
  rule: string;
  /** Refusals of this destination since the previous event for it, this one included. */
  denied: number;
  first_denied_at: string;
}

interface Held {
  lastEventAt: number;
  denied: number;
  firstDeniedAt: number;
}

/**
 * Decides which denials become events: the first of a destination at once, then at most one per
 * window carrying the count of those held back. Nothing is sent on a timer: denials held back
 * when a destination goes quiet are only in the `/metrics` counter, which counts every one.
 */
export class EgressDenialThrottle {
  private readonly bySandbox = new Map<string, Map<string, Held>>();

  constructor(
    private readonly now: () => number,
    private readonly windowMs = EGRESS_EVENT_WINDOW_MS,
  ) {}

  /** The event to send for this denial, or null when it is held back. */
  record(denial: EgressDenial): EgressDeniedData | null {
    let destinations = this.bySandbox.get(denial.sandboxId);
    if (!destinations) {
      destinations = new Map();
      this.bySandbox.set(denial.sandboxId, destinations);
    }
    const now = this.now();
    const held = destinations.get(denial.destination);
    if (held && now - held.lastEventAt < this.windowMs) {
      if (held.denied === 0) held.firstDeniedAt = denial.at.getTime();
      held.denied += 1;
      return null;
    }
    const denied = (held?.denied ?? 0) + 1;
    const firstDeniedAt = held && held.denied > 0 ? held.firstDeniedAt : denial.at.getTime();
    // Re-inserted so that the map's order is least recently reported first.
    destinations.delete(denial.destination);
    destinations.set(denial.destination, { lastEventAt: now, denied: 0, firstDeniedAt: 0 });
    if (destinations.size > MAX_DESTINATIONS) {
      const oldest = destinations.keys().next().value;
      if (oldest !== undefined) destinations.delete(oldest);
    }
    return {
      sandbox_id: denial.sandboxId,
      destination: denial.destination,
      rule: denial.rule,
      denied,
      first_denied_at: iso(firstDeniedAt),
    };
  }

  forget(sandboxId: string): void {
    this.bySandbox.delete(sandboxId);
  }
}

/**
 * Counts the runtime's egress denials per sandbox (`/metrics`) and turns them into
 * `sandbox.egress_denied` events for the owner's webhooks (throttled). Refused names arrive as
 * they happen; refused connections to addresses are read from the runtime for the sandboxes
 * with activity (`EgressDenialPuller`). A no-op for a runtime that reports none. Returns the
 * function that stops watching.
 */
export function watchEgressDenials(
  deps: Pick<
    CoreDeps,
    "activity" | "events" | "log" | "metrics" | "now" | "repos" | "runtime" | "transaction"
  >,
  pullIntervalMs = EGRESS_PULL_INTERVAL_MS,
): () => Promise<void> {
  const { runtime } = deps;
  if (!runtime.onEgressDenied) return async () => undefined;
  const throttle = new EgressDenialThrottle(deps.now);
  const read = runtime.reportEgressDenials?.bind(runtime);
  const puller = read ? new EgressDenialPuller(read, deps.log, pullIntervalMs) : null;
  const unwatchActivity = puller ? deps.activity.onActive((id) => puller.active(id)) : null;
  let watching = true;
  const onDeleted = (sandbox: SandboxRow) => {
    throttle.forget(sandbox.id);
    puller?.forget(sandbox.id);
    deps.metrics?.sandboxDeleted(sandbox.id);
  };
  deps.events.on("sandbox.deleted", onDeleted);
  // The port has no way to unsubscribe: a stopped core's listener stays registered but inert.
  runtime.onEgressDenied((denial) => {
    if (!watching) return;
    deps.metrics?.egressDenied(denial.sandboxId);
    const data = throttle.record(denial);
    if (data) void reportDenial(deps, data);
  });
  return async () => {
    unwatchActivity?.();
    await puller?.stop();
    watching = false;
    deps.events.off("sandbox.deleted", onDeleted);
  };
}

async function reportDenial(
  deps: Pick<CoreDeps, "events" | "log" | "repos">,
  data: EgressDeniedData,
): Promise<void> {
  const sandbox = await deps.repos.sandboxes.get(data.sandbox_id).catch(() => undefined);
  if (!sandbox) return;
  deps.log.info(
    {
      sandboxId: data.sandbox_id,
      destination: data.destination,
      rule: data.rule,
      denied: data.denied,
    },
    "sandbox egress denied",
  );
  deps.events.emit("sandbox.egress_denied", sandbox, { ...data });
}
