import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

/*
 * The lifetime API on both surfaces, and its deadlines across a control-plane restart. The rules
 * themselves (each firing under an injected clock) are tested in core's sandboxes/lifetime.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ config: { maxTimeoutMs: 86_400_000 } });
});
afterAll(async () => {
  await t.close();
});

async function startRunning(body: Record<string, unknown>) {
  const created = await t.api("POST", "/api/v1/sandboxes", { body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (await t.waitForStatus(created.body.id, "RUNNING")).body;
}

/** The sandbox's status in the store, or `gone`. */
async function statusOf(id: string): Promise<string> {
  return (await t.server.core.deps.repos.sandboxes.get(id))?.status ?? "gone";
}

/**
 * Sweeps until `read` answers `wanted` (at most 20 sweeps): a sweep leaves a due sandbox whose
 * lock another move holds (the supervisor's check, say) to the next sweep.
 */
async function sweepUntil(read: () => Promise<string>, wanted: string): Promise<string> {
  let last = await read();
  for (let i = 0; i < 20 && last !== wanted; i++) {
    await t.server.core.lifetime.sweep();
    last = await read();
  }
  return last;
}

describe("sandbox lifetime over HTTP", () => {
  it("takes the policy on create and shows it, with expires_at and active_time_s", async () => {
    const sandbox = await startRunning({
      timeout_s: 3600,
      on_timeout: "delete",
      idle_pause_after_s: 600,
      delete_paused_after_s: 86_400,
    });
    expect(sandbox.lifetime).toEqual({
      timeout_s: 3600,
      on_timeout: "delete",
      idle_pause_after_s: 600,
      delete_paused_after_s: 86_400,
      delete_at: null,
    });
    const left = Date.parse(sandbox.expires_at) - Date.now();
    expect(left).toBeGreaterThan(3_500_000);
    expect(left).toBeLessThanOrEqual(3_600_000);
    expect(sandbox.active_time_s).toBeGreaterThanOrEqual(0);
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
  });

  it("answers 422 with issues for values out of bounds or not in the enum", async () => {
    const bad = await t.api("POST", "/api/v1/sandboxes", {
      body: { on_timeout: "stop", idle_pause_after_s: 0 },
    });
    expect(bad.status).toBe(422);
    const paths = bad.body.issues.map((issue: { path: string[] }) => issue.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["on_timeout", "idle_pause_after_s"]));
    const tooLong = await t.api("POST", "/api/v1/sandboxes", { body: { timeout_s: 86_401 } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.issues).toEqual([
      expect.objectContaining({ path: ["timeout_s"], message: expect.stringContaining("86400") }),
    ]);
    const noBody = await t.api("POST", "/api/v1/sandboxes/sb_x/timeout", { body: {} });
    expect(noBody.status).toBe(422);
    // Nothing was started by the refused creates.
    expect((await t.api("GET", "/api/v1/sandboxes/search")).body.items).toEqual([]);
  });

  it("sets the timeout from now through REST and tRPC alike", async () => {
    const sandbox = await startRunning({});
    expect(sandbox.expires_at).toBeNull();
    expect(sandbox.lifetime.timeout_s).toBeNull();
    const rest = await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/timeout`, {
      body: { timeout_s: 600 },
    });
    expect(rest.status).toBe(200);
    expect(rest.body.lifetime.on_timeout).toBe("pause");
    const restLeft = Date.parse(rest.body.expires_at) - Date.now();
    expect(restLeft).toBeGreaterThan(590_000);
    expect(restLeft).toBeLessThanOrEqual(600_000);
    const trpc = await t.trpc("mutation", "sandboxes.setTimeout", {
      id: sandbox.id,
      timeout_s: 60,
    });
    expect(trpc.status).toBe(200);
    const trpcLeft = Date.parse(trpc.body.expires_at) - Date.now();
    expect(trpcLeft).toBeGreaterThan(50_000);
    expect(trpcLeft).toBeLessThanOrEqual(60_000);
    const missing = await t.api("POST", "/api/v1/sandboxes/sb_missing/timeout", {
      body: { timeout_s: 60 },
    });
    expect(missing.status).toBe(404);
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
  });

  it("keeps the deadlines across a control-plane restart: they are stored, not timers", async () => {
    const sandbox = await startRunning({ timeout_s: 3600, delete_paused_after_s: 86_400 });
    await t.restart();
    const afterRestart = (await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`)).body;
    expect(afterRestart.status).toBe("RUNNING");
    expect(afterRestart.expires_at).toBe(sandbox.expires_at);
    const paused = (await t.api("POST", `/api/v1/sandboxes/${sandbox.id}/pause`)).body;
    expect(paused.expires_at).toBeNull();
    expect(paused.lifetime.delete_at).not.toBeNull();
    await t.restart();
    const pausedAfterRestart = (await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`)).body;
    expect(pausedAfterRestart).toMatchObject({
      status: "PAUSED",
      expires_at: null,
      active_time_s: paused.active_time_s,
      lifetime: paused.lifetime,
    });
    const rows = await t.rawQuery(
      `SELECT active_limit_ms, paused_at, lifetime_due_at FROM sandboxes WHERE id = '${sandbox.id}'`,
    );
    expect(Number(rows[0]?.active_limit_ms)).toBe(3_600_000);
    expect(Number(rows[0]?.lifetime_due_at)).toBe(Number(rows[0]?.paused_at) + 86_400_000);
    await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
  });

  it("pauses, then deletes, through this runtime once the stored deadlines have passed", async () => {
    const sandbox = await startRunning({ timeout_s: 3600, delete_paused_after_s: 3600 });
    const { core } = t.server;
    expect(await core.lifetime.sweep()).toBe(0);
    // The hour of active time is used up (as the clock would have it): the deadline is the row's.
    await core.deps.repos.sandboxes.update(sandbox.id, { activeLimitMs: 0, lifetimeDueAt: 0 });
    expect(await sweepUntil(() => statusOf(sandbox.id), "PAUSED")).toBe("PAUSED");
    const paused = (await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`)).body;
    expect(paused).toMatchObject({
      status: "PAUSED",
      status_detail: "paused: timeout_s reached (on_timeout pause)",
    });
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("paused");
    // And it has been PAUSED for the hour it is kept.
    const row = await core.deps.repos.sandboxes.get(sandbox.id);
    const pausedAt = (row?.pausedAt ?? 0) - 3_600_000;
    await core.deps.repos.sandboxes.update(sandbox.id, { pausedAt, lifetimeDueAt: pausedAt });
    expect(await sweepUntil(() => statusOf(sandbox.id), "gone")).toBe("gone");
    expect((await t.api("GET", `/api/v1/sandboxes/${sandbox.id}`)).status).toBe(404);
    expect((await t.runtime.inspect(sandbox.id)).state).toBe("missing");
  });

  it("documents POST /sandboxes/{id}/timeout and the lifetime fields in the OpenAPI document", async () => {
    const doc = (await t.api("GET", "/api/v1/openapi.json", { key: null })).body;
    const operation = doc.paths["/api/v1/sandboxes/{id}/timeout"].post;
    expect(operation.operationId).toBe(
      "set_sandbox_timeout_api_v1_sandboxes__sandbox_id__timeout_post",
    );
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(["200", "404", "409", "422"]),
    );
    const sandboxSchema = doc.components.schemas.Sandbox;
    expect(sandboxSchema.required).toEqual(
      expect.arrayContaining(["expires_at", "active_time_s", "lifetime"]),
    );
  });
});
