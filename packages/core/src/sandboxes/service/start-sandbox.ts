import { randomBytes } from "node:crypto";
import type { Repositories, SandboxRow, SandboxSpecRow } from "@sandbox-server/db";
import type { SandboxEgressPolicy } from "@sandbox-server/egress";
import type { StartSandboxOptions } from "@sandbox-server/runtime";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { newId } from "../../shared/ids";
import type { StartSandboxInput } from "../contracts";
import {
  initialLifetime,
  type LifetimeConfig,
  type LifetimePolicy,
  resolveLifetime,
} from "../lifetime/policy";
import { portAccessOf } from "../ports/contracts";
import { claimWarmSandbox } from "../warm-pool/claim";
import { evictWarmSandboxAtLimit } from "../warm-pool/evict";
import { egressPolicyOf, specEgressPolicy } from "./egress-policy";
import { resolveSpec } from "./resolve-spec";
import type { SandboxLink } from "./sandbox-link";
import type { SandboxMoveDeps } from "./status";
import { updateSandbox } from "./status";

export type { SandboxLink } from "./sandbox-link";

const ACTIVE = ["STARTING", "RUNNING"];

/**
 * 429 when starting (or resuming) one more sandbox would pass the server's limit (or leave fewer
 * than `keepFree` slots: the warm pool never takes the last one). Call it in the
 * transaction that makes the sandbox STARTING: the count and the write then commit together, and
 * concurrent starts, serialised by the store, cannot overshoot.
 */
export async function assertCapacity(
  deps: { config: Pick<CoreConfig, "maxRunningSandboxes"> },
  tx: Repositories,
  keepFree = 0,
): Promise<void> {
  const active = await tx.sandboxes.countByStatus(ACTIVE);
  if (active + keepFree >= deps.config.maxRunningSandboxes) {
    throw new AppError(
      "SANDBOX_LIMIT_REACHED",
      `This server runs at most ${deps.config.maxRunningSandboxes} sandboxes at once; pause or delete one first`,
      { details: { limit: deps.config.maxRunningSandboxes } },
    );
  }
}

/** What launching a sandbox, or claiming a warm-pool member, reads and moves. */
export type SandboxLaunchDeps = Pick<
  CoreDeps,
  | "activity"
  | "agents"
  | "events"
  | "locks"
  | "log"
  | "now"
  | "portUrls"
  | "repos"
  | "runtime"
  | "transaction"
  | "warmPool"
>;

/** What `startSandbox` uses: the launch's collaborators and the limits and defaults it applies. */
export type StartSandboxDeps = SandboxLaunchDeps & {
  config: Pick<
    CoreConfig,
    | "defaultSpecId"
    | "maxRunningSandboxes"
    | "operatorEgress"
    | "sandboxStartTimeoutMs"
    | "warmPoolSize"
  > &
    LifetimeConfig;
};

/**
 * A RUNNING sandbox from the warm pool when it has one for this request, else a new one: recorded
 * STARTING and launched, RUNNING once its agent server answers. At the running limit a pool
 * sandbox makes room before the create is refused.
 */
export async function startSandbox(
  deps: StartSandboxDeps,
  ownerId: string,
  input: StartSandboxInput,
  link?: SandboxLink,
): Promise<{ row: SandboxRow; ready: Promise<SandboxRow | undefined> }> {
  const spec = await resolveSpec(deps, input.sandbox_spec_id);
  const network = egressPolicyOf(deps, specEgressPolicy(spec), input.network, ["network"]);
  const lifetime = resolveLifetime(deps.config, spec.lifetime, input);
  const claimed = await claimWarmSandbox(
    deps,
    ownerId,
    spec,
    { ...input, network },
    lifetime,
    link,
  );
  if (claimed) {
    deps.warmPool.refillSoon();
    return { row: claimed, ready: Promise.resolve(claimed) };
  }
  await evictWarmSandboxAtLimit(deps);
  return createSandbox(deps, ownerId, spec, { ...input, network, lifetime }, 0, link);
}

/**
 * Records a STARTING sandbox (under its lifetime policy, if given) and launches it; RUNNING
 * follows once its agent server answers.
 */
export async function createSandbox(
  deps: Pick<CoreDeps, "events" | "locks" | "log" | "now" | "runtime" | "transaction"> & {
    config: Pick<CoreConfig, "maxRunningSandboxes" | "sandboxStartTimeoutMs">;
  },
  ownerId: string,
  spec: SandboxSpecRow,
  input: Pick<StartSandboxInput, "labels" | "env" | "ports" | "auto_resume"> & {
    network: SandboxEgressPolicy;
    lifetime?: LifetimePolicy;
  },
  keepFree = 0,
  link?: SandboxLink,
): Promise<{ row: SandboxRow; ready: Promise<SandboxRow | undefined> }> {
  await link?.prepare?.();
  const now = deps.now();
  const row = await deps.transaction(async (tx) => {
    await assertCapacity(deps, tx, keepFree);
    const inserted = await tx.sandboxes.insert({
      id: newId("sb"),
      ownerId,
      specId: spec.id,
      runtime: deps.runtime.kind,
      status: "STARTING",
      statusDetail: null,
      sessionApiKey: randomBytes(24).toString("base64url"),
      agentServerUrl: null,
      labels: input.labels ?? {},
      env: input.env ?? {},
      network: input.network,
      portAccess: portAccessOf(input),
      lastActivityAt: null,
      createdAt: now,
      updatedAt: now,
      // Warm-pool members have none: a claim gives them their owner's.
      ...(input.lifetime ? initialLifetime(input.lifetime, now) : {}),
    });
    await link?.record(tx, inserted.id);
    return inserted;
  });
  await registerLaunch(deps, row, spec);
  deps.log.info({ sandboxId: row.id, specId: spec.id }, "sandbox starting");
  const ready = deps.locks.run(row.id, () => launchSandbox(deps, row, spec, link));
  // Often nobody waits for it (POST /sandboxes answers STARTING). A launch that cannot even record
  // its failure (the store closed under a shutdown) is logged here, never an unhandled rejection;
  // whoever awaits `ready` still sees the error.
  ready.catch((error: unknown) => {
    deps.log.warn(
      { sandboxId: row.id, reason: errorMessage(error) },
      "sandbox launch not recorded",
    );
  });
  return { row, ready };
}

/**
 * Intent before effect: the runtime's launch record is durable before the create is answered, so
 * a control plane killed from here on finds the sandbox and relaunches it (the store's row alone
 * covers runtimes without `register`). When even that fails, nothing is acknowledged or kept.
 */
async function registerLaunch(
  deps: Pick<CoreDeps, "log" | "runtime" | "transaction">,
  row: SandboxRow,
  spec: SandboxSpecRow,
) {
  if (!deps.runtime.register) return;
  try {
    await deps.runtime.register(launchOptions(row, spec));
  } catch (error) {
    deps.log.error({ sandboxId: row.id, reason: errorMessage(error) }, "sandbox not registered");
    await deps.runtime.delete(row.id).catch(() => undefined);
    await deps.transaction((tx) => tx.sandboxes.remove(row.id));
    throw new AppError(
      "SANDBOX_START_FAILED",
      `The sandbox could not be recorded: ${errorMessage(error)}`,
    );
  }
}

/**
 * What the runtime is asked to run for a sandbox: its row (key, env, labels, egress policy) and
 * its spec. Every launch goes through here: create, the runtime's launch record, a relaunch.
 */
export function launchOptions(row: SandboxRow, spec: SandboxSpecRow): StartSandboxOptions {
  return {
    sandboxId: row.id,
    ownerId: row.ownerId,
    specId: spec.id,
    sessionApiKey: row.sessionApiKey,
    env: { ...spec.initialEnv, ...row.env },
    ...(spec.image ? { image: spec.image } : {}),
    ...(spec.command ? { command: spec.command } : {}),
    ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
    resources: {
      ...(spec.cpu ? { cpu: spec.cpu } : {}),
      ...(spec.memoryMb ? { memoryMb: spec.memoryMb } : {}),
      ...(spec.pids ? { pids: spec.pids } : {}),
    },
    labels: row.labels,
    egress: row.network,
  };
}

async function launchSandbox(
  deps: Pick<CoreDeps, "events" | "log" | "now" | "runtime" | "transaction"> & {
    config: Pick<CoreConfig, "sandboxStartTimeoutMs">;
  },
  row: SandboxRow,
  spec: SandboxSpecRow,
  link: SandboxLink | undefined,
): Promise<SandboxRow | undefined> {
  try {
    const started = await deps.runtime.start(launchOptions(row, spec));
    // The address is recorded while the agent server boots, not before the wait begins.
    const recorded = started.agentServerUrl
      ? updateSandbox(deps, row.id, { agentServerUrl: started.agentServerUrl })
      : Promise.resolve(undefined);
    const [ready] = await Promise.all([
      deps.runtime.waitUntilReady(row.id, deps.config.sandboxStartTimeoutMs),
      recorded,
    ]);
    const agentServerUrl = ready.agentServerUrl ?? started.agentServerUrl ?? null;
    if (agentServerUrl) link?.reachable?.({ ...row, agentServerUrl });
    return markRunning(deps, row.id, ready.agentServerUrl);
  } catch (error) {
    deps.log.warn({ sandboxId: row.id, reason: errorMessage(error) }, "sandbox failed to start");
    return updateSandbox(deps, row.id, {
      status: "ERROR",
      statusDetail: `Failed to start: ${errorMessage(error)}`,
    });
  }
}

/** STARTING (or anything but STOPPING) → RUNNING; `statusDetail` says how it got there, if unusual. */
export function markRunning(
  deps: SandboxMoveDeps,
  id: string,
  agentServerUrl: string | null,
  statusDetail: string | null = null,
): Promise<SandboxRow | undefined> {
  return updateSandbox(deps, id, async (current) =>
    // A delete that raced the start wins: never resurrect a STOPPING sandbox.
    current.status === "STOPPING"
      ? null
      : {
          status: "RUNNING",
          statusDetail,
          agentServerUrl: agentServerUrl ?? current.agentServerUrl,
        },
  );
}
