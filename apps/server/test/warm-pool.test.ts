import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxRow } from "@sandbox-server/db";
import { parseEgressEntry, type SandboxEgressPolicy } from "@sandbox-server/egress";
import type { SandboxRuntime } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAgentServer, startTestServer, type TestServer } from "./harness";

/*
 * WARM_POOL_SIZE with real agent servers, on the suite's runtime (process and docker projects). The pool's members are read
 * from the store (the test's only window on them: no API shows them) and from the runtime.
 */
const POOL = 2;
const LIMIT = 5;
const POOL_OWNER = "usr_warm_pool";

let t: TestServer;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await startTestServer({
    config: { warmPoolSize: POOL, maxRunningSandboxes: LIMIT },
  });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
}, 120_000);
afterAll(async () => {
  if (!t) return;
  // The harness deletes sandboxes before it stops the server: stop the pool first, or the
  // supervisor would refill it while the harness removes its members.
  t.server.core.supervisor.stop();
  await t.server.core.supervisor.poolSettled();
  // Members still coming up finish their start first (vitest's poll only works inside tests).
  for (let i = 0; i < 600 && (await poolRows("STARTING")).length > 0; i++) await sleep(100);
  await t.close();
});

async function poolRows(status = "RUNNING"): Promise<SandboxRow[]> {
  const rows = await t.server.core.deps.repos.sandboxes.listAll();
  return rows.filter((row) => row.ownerId === POOL_OWNER && row.status === status);
}

/** Waits until the pool holds `count` RUNNING members whose agent servers answer. */
async function poolOf(count: number): Promise<SandboxRow[]> {
  await expect
    .poll(async () => (await poolRows()).length, { timeout: 60_000, interval: 100 })
    .toBe(count);
  const rows = await poolRows();
  for (const row of rows) expect((await t.runtime.inspect(row.id)).state).toBe("running");
  return rows;
}

async function agentStatus(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/api/conversations/count`, {
    headers: { "x-session-api-key": key },
  });
  await res.body?.cancel();
  return res.status;
}

/** The caller's sandboxes (the admin's without a key). */
async function searchIds(key?: string): Promise<string[]> {
  const res = await t.api("GET", "/api/v1/sandboxes/search?limit=100", { key });
  expect(res.status).toBe(200);
  return res.body.items.map((s: { id: string }) => s.id);
}

describe("warm pool", () => {
  let claimedId = "";
  const poolKeys = new Map<string, string>();

  it("fills to WARM_POOL_SIZE with running sandboxes nobody can see", async () => {
    const members = await poolOf(POOL);
    expect(await searchIds(alice)).toEqual([]);
    expect(await searchIds(bob)).toEqual([]);
    // Not even the admin: pool sandboxes belong to no user.
    expect(await searchIds()).toEqual([]);
    for (const member of members) {
      const read = await t.api("GET", `/api/v1/sandboxes/${member.id}`, { key: alice });
      expect(read.status).toBe(404);
    }
  });

  it("a create claims a member: RUNNING in the 201, under a new key, the pool key dead", async () => {
    const members = await poolOf(POOL);
    const byId = new Map(members.map((m) => [m.id, m]));
    const res = await t.api("POST", "/api/v1/sandboxes", {
      key: alice,
      body: {
        labels: { team: "a" },
        timeout_s: 600,
        ports: [{ port: 8080, name: "WEB" }],
        auto_resume: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe("RUNNING");
    expect(res.body.labels).toEqual({ team: "a" });
    // The owner's declared ports and auto-resume come with the claim.
    expect(res.body.auto_resume).toBe(true);
    expect(res.body.exposed_urls.map((u: { name: string }) => u.name)).toEqual([
      "AGENT_SERVER",
      "WEB",
    ]);
    // The owner's lifetime policy, its active time counted from the claim, not from the pool.
    expect(res.body.lifetime.timeout_s).toBe(600);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(600_000);
    const member = byId.get(res.body.id);
    if (!member) throw new Error(`${res.body.id} was not a pool member`);
    poolKeys.set(member.id, member.sessionApiKey);
    claimedId = res.body.id;
    const url: string = res.body.agent_server_url;
    const key: string = res.body.session_api_key;
    expect(url).toBe(member.agentServerUrl);
    expect(key).not.toBe(member.sessionApiKey);
    // The probe that must fail first succeeds where it should: the owner's key works.
    expect(await agentStatus(url, key)).toBe(200);
    expect(await agentStatus(url, member.sessionApiKey)).toBe(401);
    // It is alice's now, created now, and nobody else's to see.
    expect(await searchIds(alice)).toEqual([claimedId]);
    expect(await searchIds(bob)).toEqual([]);
    expect((await t.api("GET", `/api/v1/sandboxes/${claimedId}`, { key: bob })).status).toBe(404);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(member.createdAt);
    // A conversation on the claimed sandbox works end to end.
    const conv = await t.api("POST", "/api/v1/app-conversations", {
      key: alice,
      body: { sandbox_id: claimedId },
    });
    expect(conv.status).toBe(201);
  });

  it("a claimed sandbox brought back after its agent server died keeps the owner's key", async () => {
    await killAgentServer(t, claimedId);
    await t.waitForStatus(claimedId, "ERROR", alice);
    const resumed = await t.api("POST", `/api/v1/sandboxes/${claimedId}/resume`, { key: alice });
    expect(resumed.body.status).toBe("RUNNING");
    const { agent_server_url: url, session_api_key: key } = resumed.body;
    expect(await agentStatus(url, key)).toBe(200);
    // Relaunched with the environment it was started with (the pool key), yet only the
    // rotated key opens it.
    const member = await t.server.core.deps.repos.sandboxes.get(claimedId);
    expect(member?.sessionApiKey).toBe(key);
    expect(await agentStatus(url, poolKeys.get(claimedId) ?? "")).toBe(401);
  });

  it("refills after a claim", async () => {
    const members = await poolOf(POOL);
    expect(members.map((m) => m.id)).not.toContain(claimedId);
  });

  it("conversation creates claim from the pool too", async () => {
    const before = new Set((await poolOf(POOL)).map((m) => m.id));
    const conv = await t.api("POST", "/api/v1/app-conversations", { key: bob, body: {} });
    expect(conv.status).toBe(201);
    expect(before.has(conv.body.sandbox_id)).toBe(true);
    await poolOf(POOL);
  });

  it("a conversation on a claimed member passes every start-task state, and its agent server holds it", async () => {
    const before = new Set((await poolOf(POOL)).map((m) => m.id));
    const res = await t.api("POST", "/api/v1/app-conversations/stream-start", {
      key: bob,
      body: { title: "warm" },
    });
    expect(res.status).toBe(200);
    const states: { status: string; sandbox_id: string | null; app_conversation_id: string }[] =
      res.body;
    expect(states.map((state) => state.status).join(" → ")).toBe(
      "WORKING → WAITING_FOR_SANDBOX → STARTING_CONVERSATION → READY",
    );
    const ready = states.at(-1);
    expect(before.has(ready?.sandbox_id ?? "")).toBe(true);
    const conv = await t.api("GET", `/api/v1/app-conversations?ids=${ready?.app_conversation_id}`, {
      key: bob,
    });
    expect(conv.status).toBe(200);
    const [found] = conv.body;
    expect(found).toMatchObject({ sandbox_id: ready?.sandbox_id, sandbox_status: "RUNNING" });
    const held = await fetch(`${found.conversation_url}`, {
      headers: { "x-session-api-key": found.session_api_key },
    });
    expect(held.status).toBe(200);
    await held.body?.cancel();
    // The next test counts running sandboxes.
    const removed = await t.api("DELETE", `/api/v1/sandboxes/${ready?.sandbox_id}`, { key: bob });
    expect(removed.status).toBe(200);
    await poolOf(POOL);
  });

  it("at the running limit the pool makes room: a user's create succeeds", async () => {
    // alice 1 + bob 1 + pool 2: one slot left, which the pool never takes. `env` cannot be
    // given to a running agent server, so these creates cannot claim.
    const withEnv = { env: { FROM_TEST: "1" } };
    const before = (await poolOf(POOL)).map((m) => m.id);
    const cold = await t.api("POST", "/api/v1/sandboxes", { key: bob, body: withEnv });
    expect(cold.status).toBe(201);
    expect(cold.body.status).toBe("STARTING");
    expect(before).not.toContain(cold.body.id);
    await t.waitForStatus(cold.body.id, "RUNNING", bob);
    expect((await poolRows()).map((m) => m.id).sort()).toEqual([...before].sort());
    // Now at the limit: a pool member is removed for the next create instead of a 429.
    const evicting = await t.api("POST", "/api/v1/sandboxes", { key: bob, body: withEnv });
    expect(evicting.status).toBe(201);
    expect(before).not.toContain(evicting.body.id);
    await t.waitForStatus(evicting.body.id, "RUNNING", bob);
    const left = await poolRows();
    expect(left).toHaveLength(1);
    // The last member is claimed, then the limit holds.
    const claim = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} });
    expect(claim.status).toBe(201);
    expect(claim.body.id).toBe(left[0]?.id);
    expect(claim.body.status).toBe("RUNNING");
    const refused = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} });
    expect(refused.status).toBe(429);
    expect(await poolRows("STARTING")).toEqual([]);
    expect(await poolRows()).toEqual([]);
  });

  it("adopts the pool after a control-plane restart, same sandboxes", async () => {
    // Free slots so that the pool fills again.
    for (const key of [alice, bob]) {
      for (const id of await searchIds(key)) {
        expect((await t.api("DELETE", `/api/v1/sandboxes/${id}`, { key })).status).toBe(200);
      }
    }
    const before = (await poolOf(POOL)).map((m) => m.id).sort();
    await t.restart();
    const after = (await poolOf(POOL)).map((m) => m.id).sort();
    expect(after).toEqual(before);
    const all = await t.server.core.deps.repos.sandboxes.listAll();
    expect(all.filter((row) => row.ownerId === POOL_OWNER)).toHaveLength(POOL);
    const res = await t.api("POST", "/api/v1/sandboxes", { key: alice, body: {} });
    expect(res.status).toBe(201);
    expect(before).toContain(res.body.id);
    expect(await agentStatus(res.body.agent_server_url, res.body.session_api_key)).toBe(200);
    expect((await t.api("DELETE", `/api/v1/sandboxes/${res.body.id}`, { key: alice })).status).toBe(
      200,
    );
  });

  it("a create with its own egress policy claims a member only where the runtime can apply it", async () => {
    const network = { allow_internet: false, allow_out: ["pypi.org:443"], deny_out: [] };
    const runtime: SandboxRuntime = t.runtime;
    // A runtime that cannot change a policy live: a new sandbox, never a pool member.
    Object.assign(runtime, { setEgressPolicy: undefined });
    let members = new Set((await poolOf(POOL)).map((m) => m.id));
    const fresh = await t.api("POST", "/api/v1/sandboxes", { key: bob, body: { network } });
    expect(fresh.status).toBe(201);
    expect(members.has(fresh.body.id)).toBe(false);
    expect(fresh.body.network).toEqual(network);
    await t.waitForStatus(fresh.body.id, "RUNNING", bob);
    expect((await t.api("DELETE", `/api/v1/sandboxes/${fresh.body.id}`, { key: bob })).status).toBe(
      200,
    );
    // A runtime that can: the member gets the policy while it is still the pool's, then is claimed.
    const applied: { id: string; policy: SandboxEgressPolicy; owner?: string }[] = [];
    Object.assign(runtime, {
      setEgressPolicy: async (id: string, policy: SandboxEgressPolicy) => {
        const row = await t.server.core.deps.repos.sandboxes.get(id);
        applied.push({ id, policy, ...(row ? { owner: row.ownerId } : {}) });
      },
    });
    members = new Set((await poolOf(POOL)).map((m) => m.id));
    const claimed = await t.api("POST", "/api/v1/sandboxes", { key: bob, body: { network } });
    expect(claimed.status).toBe(201);
    expect(claimed.body.status).toBe("RUNNING");
    expect(members.has(claimed.body.id)).toBe(true);
    expect(claimed.body.network).toEqual(network);
    expect(applied).toEqual([
      {
        id: claimed.body.id,
        owner: POOL_OWNER,
        policy: { allowInternet: false, allowOut: [parseEgressEntry("pypi.org:443")], denyOut: [] },
      },
    ]);
    const read = await t.api("GET", `/api/v1/sandboxes/${claimed.body.id}`, { key: bob });
    expect(read.body.network).toEqual(network);
    expect(
      (await t.api("DELETE", `/api/v1/sandboxes/${claimed.body.id}`, { key: bob })).status,
    ).toBe(200);
  });
});
