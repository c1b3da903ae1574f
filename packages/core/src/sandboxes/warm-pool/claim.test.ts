import type { SandboxRow } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { pollUntil } from "../../../test/wait";
import { AppError } from "../../errors";
import { resolveLifetime } from "../lifetime/policy";
import { specEgressPolicy } from "../service/egress-policy";
import { resolveSpec } from "../service/resolve-spec";
import type { SandboxLink } from "../service/sandbox-link";
import { claimWarmSandbox } from "./claim";
import { POOL_OWNER_ID } from "./pool-state";

/*
 * A claim with a link (what a conversation's create hands it), against real agent servers of a
 * real pool (WARM_POOL_SIZE 2, refilled by the core's supervisor).
 */
let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore({ config: { warmPoolSize: 2 } });
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
});

/** The pool's two RUNNING members, oldest first, once both are there. */
async function fullPool(): Promise<SandboxRow[]> {
  const spec = await resolveSpec(t.deps, undefined);
  return pollUntil(
    () => t.deps.repos.sandboxes.listRunning(POOL_OWNER_ID, spec.id, 10),
    (rows) => rows.length === 2,
    "the pool did not hold two running members",
  );
}

async function claim(link: SandboxLink): Promise<SandboxRow | undefined> {
  const spec = await resolveSpec(t.deps, undefined);
  const lifetime = resolveLifetime(t.deps.config, spec.lifetime, {});
  const input = { network: specEgressPolicy(spec) };
  return claimWarmSandbox(t.deps, alice.id, spec, input, lifetime, link);
}

async function answers(row: SandboxRow, key: string): Promise<number> {
  const res = await fetch(`${row.agentServerUrl}/api/conversations/count`, {
    headers: { "x-session-api-key": key },
  });
  await res.body?.cancel();
  return res.status;
}

describe("a warm-pool claim's link", () => {
  it("is prepared while the key rotates, reaches the member under its new key, then is recorded with the claim", async () => {
    const [oldest] = await fullPool();
    const steps: string[] = [];
    let reachedWith = "";
    const claimed = await claim({
      prepare: async () => {
        steps.push("prepare");
      },
      reachable: (sandbox) => {
        steps.push(`reachable ${sandbox.id}`);
        reachedWith = sandbox.sessionApiKey;
      },
      record: async (tx, sandboxId) => {
        // In the claim's transaction: the member is the owner's already.
        steps.push(`record ${sandboxId} ${(await tx.sandboxes.get(sandboxId))?.ownerId}`);
      },
    });
    expect(claimed?.id).toBe(oldest?.id);
    expect(steps).toEqual([
      "prepare",
      `reachable ${oldest?.id}`,
      `record ${oldest?.id} ${alice.id}`,
    ]);
    expect(claimed?.sessionApiKey).toBe(reachedWith);
    if (!claimed || !oldest) throw new Error("no claim");
    expect(await answers(claimed, reachedWith)).toBe(200);
    expect(await answers(claimed, oldest.sessionApiKey)).toBe(401);
  });

  it("that cannot prepare ends the claim: the member it rotated is retired, no other is touched", async () => {
    const [oldest, other] = await fullPool();
    if (!oldest || !other) throw new Error("no pool");
    // No refill from here on: the retired member stays to be looked at.
    t.core.supervisor.stop();
    await t.core.supervisor.poolSettled();
    const touched: string[] = [];
    const refused = claim({
      prepare: () => Promise.reject(new AppError("CONVERSATION_EXISTS", "that id is taken")),
      reachable: (sandbox) => touched.push(sandbox.id),
      record: async (_tx, sandboxId) => {
        touched.push(sandboxId);
      },
    });
    await expect(refused).rejects.toThrow("that id is taken");
    expect(touched).toEqual([]);
    const retired = await t.deps.repos.sandboxes.get(oldest.id);
    expect(retired).toMatchObject({ ownerId: POOL_OWNER_ID, status: "ERROR" });
    expect(retired?.statusDetail).toContain("It was not claimed");
    // Its key was swapped for one nobody holds; the other member still takes the pool's.
    expect(await answers(oldest, oldest.sessionApiKey)).toBe(401);
    expect(await t.deps.repos.sandboxes.get(other.id)).toMatchObject({
      ownerId: POOL_OWNER_ID,
      status: "RUNNING",
    });
    expect(await answers(other, other.sessionApiKey)).toBe(200);
  });
});
