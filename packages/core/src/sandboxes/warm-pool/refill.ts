import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { specEgressPolicy } from "../service/egress-policy";
import { resolveSpec } from "../service/resolve-spec";
import { createSandbox } from "../service/start-sandbox";
import { retireWarmSandbox, type WarmPoolDeps } from "./evict";
import { isPoolMember, POOL_OWNER_ID } from "./pool-state";
import { warmUp } from "./warm-up";

/** The pool's own, and what starting a member reads. */
export type RefillDeps = WarmPoolDeps & {
  config: Pick<CoreConfig, "defaultSpecId" | "sandboxStartTimeoutMs">;
};

const LIVE = new Set(["STARTING", "RUNNING"]);

/**
 * Brings the pool to `warmPoolSize` sandboxes of the default spec: dead (ERROR), paused or
 * surplus members are removed, missing ones started. A new member never takes the last free
 * running slot, so a user's create always finds one or a pool member to claim or evict. One
 * refill at a time; called by the supervisor on every pass and after each claim.
 */
export function refillWarmPool(deps: RefillDeps): Promise<void> {
  const state = deps.warmPool;
  state.refilling ??= refill(deps).finally(() => {
    state.refilling = null;
  });
  return state.refilling;
}

async function refill(deps: RefillDeps): Promise<void> {
  const state = deps.warmPool;
  const { taken } = state;
  const size = deps.config.warmPoolSize;
  const members = (await deps.repos.sandboxes.listAll()).filter(
    (row) => isPoolMember(row, deps) && row.status !== "STOPPING" && !taken.has(row.id),
  );
  if (members.length === 0 && size <= 0) return;
  const spec = await resolveSpec(deps, undefined);
  const live = members.filter((row) => LIVE.has(row.status) && row.specId === spec.id);
  keepConnected(deps, live);
  const surplus = live.slice(Math.max(size, 0));
  const dead = members.filter((row) => !live.includes(row));
  for (const row of [...dead, ...surplus]) {
    if (!state.active) return;
    const why = dead.includes(row) ? `it is ${row.status}` : "the pool is smaller now";
    await retireWarmSandbox(deps, row, why);
  }
  for (let count = live.length; count < size; count++) {
    if (!state.active) return;
    try {
      const { row, ready } = await createSandbox(
        deps,
        POOL_OWNER_ID,
        spec,
        { network: specEgressPolicy(spec) },
        1,
      );
      ready
        .then((started) => warmUp(deps, started))
        .catch((error: unknown) => {
          deps.log.error(
            { sandboxId: row.id, reason: errorMessage(error) },
            "warm sandbox start failed",
          );
        });
    } catch (error) {
      // At the limit (less the slot kept free) the pool waits; anything else is logged.
      if (!(error instanceof AppError && error.code === "SANDBOX_LIMIT_REACHED")) {
        deps.log.warn({ reason: errorMessage(error) }, "warm pool refill failed");
      }
      return;
    }
  }
}

/**
 * Agent servers close a connection idle for 5 s (undici lets it go 2 s before that): a claim
 * after a quiet spell would open a new one, through Docker's port proxy too. A probe every
 * KEEP_CONNECTED_MS over the agent client's pool, to each RUNNING member, keeps one open for the
 * claim's key rotation. Probes are not activity (no idle pause) and not logged.
 */
const KEEP_CONNECTED_MS = 2_000;

function keepConnected(
  deps: Pick<CoreDeps, "agents" | "warmPool">,
  live: readonly SandboxRow[],
): void {
  const { probed } = deps.warmPool;
  const now = performance.now();
  const running = new Set<string>();
  for (const row of live) {
    if (row.status !== "RUNNING" || !row.agentServerUrl) continue;
    running.add(row.id);
    if (now - (probed.get(row.id) ?? Number.NEGATIVE_INFINITY) < KEEP_CONNECTED_MS) continue;
    probed.set(row.id, now);
    void deps.agents
      .request(row.agentServerUrl, row.sessionApiKey, {
        method: "GET",
        path: "/health",
        timeoutMs: 2_000,
      })
      .catch(() => undefined);
  }
  for (const id of probed.keys()) if (!running.has(id)) probed.delete(id);
}
