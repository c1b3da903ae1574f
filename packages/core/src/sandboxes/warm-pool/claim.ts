import type { SandboxPortAccess, SandboxRow, SandboxSpecRow } from "@sandbox-server/db";
import type { SandboxEgressPolicy } from "@sandbox-server/egress";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import type { StartSandboxInput } from "../contracts";
import { lifetimeDueAt as dueAt, initialLifetime, type LifetimePolicy } from "../lifetime/policy";
import { portAccessOf } from "../ports/contracts";
import { sameEgressPolicy } from "../service/egress-policy";
import type { SandboxLink } from "../service/sandbox-link";
import { type SandboxMoveDeps, updateSandbox } from "../service/status";
import { isPoolMember, newSessionKey, POOL_OWNER_ID } from "./pool-state";

/** How long a claim waits for the pool sandbox's agent server to take the new key. */
const ROTATE_TIMEOUT_MS = 2_000;
/** More than the largest pool (WARM_POOL_SIZE ≤ 64) holds, refills and surplus included. */
const MAX_MEMBERS_READ = 200;

/**
 * A RUNNING pool sandbox of the spec, handed to `ownerId` under a session key nobody has seen,
 * with the request's labels, egress policy and lifetime policy, created now; undefined when the
 * pool has none to give (or the request sets `env`: a running agent server cannot take new
 * environment; or another egress policy than the pool's, and the runtime cannot change one live).
 */
export async function claimWarmSandbox(
  deps: Pick<
    CoreDeps,
    "agents" | "events" | "locks" | "log" | "now" | "repos" | "runtime" | "transaction" | "warmPool"
  > & { config: Pick<CoreConfig, "warmPoolSize"> },
  ownerId: string,
  spec: SandboxSpecRow,
  input: Omit<StartSandboxInput, "network"> & { network: SandboxEgressPolicy },
  lifetime: LifetimePolicy,
  link?: SandboxLink,
): Promise<SandboxRow | undefined> {
  if (deps.config.warmPoolSize <= 0) return undefined;
  if (input.env && Object.keys(input.env).length > 0) return undefined;
  const canSetEgress = deps.runtime.setEgressPolicy !== undefined;
  const { taken } = deps.warmPool;
  // The pool's own rows only: a claim reads (and decrypts the keys of) a few, not every RUNNING
  // one. Oldest first: the one whose warm-up is surely over.
  const running = await deps.repos.sandboxes.listRunning(POOL_OWNER_ID, spec.id, MAX_MEMBERS_READ);
  const members = running.filter(
    (row) =>
      isPoolMember(row, deps) &&
      row.specId === spec.id &&
      (canSetEgress || sameEgressPolicy(row.network, input.network)),
  );
  for (const member of members) {
    if (taken.has(member.id)) continue;
    taken.add(member.id);
    try {
      const claimed = await handOver(
        deps,
        member.id,
        ownerId,
        { labels: input.labels ?? {}, portAccess: portAccessOf(input) },
        input.network,
        lifetime,
        link,
      );
      if (claimed) return claimed;
    } finally {
      taken.delete(member.id);
    }
  }
  return undefined;
}

/**
 * Under the sandbox's lock: the owner's egress policy is put in force (when it differs from the
 * pool's), the agent server swaps the pool key for a new one (authenticated by the pool key,
 * which stops working), then one conditional update makes the row the owner's. The policy comes
 * first: nobody holds a key to the sandbox while it is wider than its owner asked.
 * The swap comes first, so the new key is never recorded for a sandbox that does not accept it;
 * a control plane killed between the two leaves a pool member that refuses the pool key, which
 * the next claim finds out and retires. While the agent server swaps keys, what the link records
 * needs is stored (`prepare`); once it has, the link may use the sandbox (`reachable`) while the
 * claim is stored.
 */
async function handOver(
  deps: Pick<
    CoreDeps,
    "agents" | "events" | "locks" | "log" | "now" | "repos" | "runtime" | "transaction"
  >,
  id: string,
  ownerId: string,
  { labels, portAccess }: { labels: Record<string, string>; portAccess: SandboxPortAccess },
  network: SandboxEgressPolicy,
  lifetime: LifetimePolicy,
  link: SandboxLink | undefined,
): Promise<SandboxRow | undefined> {
  return deps.locks.run(id, async () => {
    const member = await deps.repos.sandboxes.get(id);
    if (!member || member.ownerId !== POOL_OWNER_ID || member.status !== "RUNNING") return;
    if (!member.agentServerUrl) return;
    const sessionApiKey = newSessionKey();
    let step = "session key";
    let prepared: Promise<void> | undefined;
    try {
      if (!sameEgressPolicy(member.network, network)) {
        step = "egress policy";
        await deps.runtime.setEgressPolicy?.(id, network);
        step = "session key";
      }
      const rotation = deps.agents.request(member.agentServerUrl, member.sessionApiKey, {
        method: "POST",
        path: "/api/session-keys",
        body: JSON.stringify({ session_api_key: sessionApiKey }),
        timeoutMs: ROTATE_TIMEOUT_MS,
      });
      // Stored while the agent server answers (its failure is met below, once it has).
      prepared = link?.prepare?.();
      prepared?.catch(() => undefined);
      const answer = await rotation;
      if (answer.status !== 200) throw new Error(`the agent server answered ${answer.status}`);
    } catch (error) {
      // Unusable for anyone: the refill removes it and starts another.
      deps.log.warn({ sandboxId: id, reason: errorMessage(error) }, "warm sandbox not claimable");
      await retire(deps, id, `Its ${step} could not be changed: ${errorMessage(error)}`);
      // A link that could not prepare ends the claim here, before another member is touched.
      await prepared;
      return;
    }
    try {
      await prepared;
    } catch (error) {
      // It answers to a key nobody will hold (and perhaps to the owner's egress policy).
      await retire(deps, id, `It was not claimed: ${errorMessage(error)}`);
      throw error;
    }
    link?.reachable?.({ ...member, sessionApiKey });
    const now = deps.now();
    const claimed = await deps.transaction(async (tx) => {
      const row = await tx.sandboxes.claim(id, POOL_OWNER_ID, {
        ownerId,
        sessionApiKey,
        labels,
        network,
        portAccess,
        createdAt: now,
        updatedAt: now,
        ...claimedLifetime(lifetime, now),
      });
      if (row) await link?.record(tx, id);
      return row;
    });
    if (!claimed) return;
    deps.log.info({ sandboxId: id, specId: claimed.specId }, "warm sandbox claimed");
    // For its new owner the sandbox appears RUNNING (their webhooks, waiters, followers).
    deps.events.emit("sandbox.status_changed", { sandbox: claimed, previousStatus: null });
    return claimed;
  });
}

/** ERROR: the refill removes it and starts another. */
async function retire(deps: SandboxMoveDeps, id: string, statusDetail: string): Promise<void> {
  await updateSandbox(deps, id, { status: "ERROR", statusDetail });
}

/** The owner's policy, its active time counted from the claim (the pool's wait is not theirs). */
function claimedLifetime(policy: LifetimePolicy, now: number) {
  const fields = initialLifetime(policy, now);
  const lifetimeDueAt = dueAt({ ...fields, status: "RUNNING", lastActivityAt: now });
  return { ...fields, lifetimeDueAt };
}
