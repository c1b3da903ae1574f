import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countDuplicates, figuresOf, findLost, type Outcome, track } from "./lib/acknowledged";
import { findDockerMismatches, removeSandboxContainers } from "./lib/docker-sandboxes";
import { findMismatches, waitForSettled } from "./lib/invariants";
import { listAll } from "./lib/pages";
import { type ServerProcess, startServerProcess } from "./lib/server-process";

/**
 * "Acknowledged means durable": the control plane is SIGKILLed while creates, conversations,
 * pauses, resumes and deletes are in flight, on both runtimes. After the restart every operation
 * that was answered with success has its effect — nothing acknowledged is lost or duplicated —
 * and the store agrees with the runtime. Unanswered operations may go either way.
 */
/** Relaunching 20 agent servers on two cores takes a while. */
const SLOW = { timeout: 300_000 };

describe.each(["process", "docker"] as const)("control plane SIGKILLed (%s runtime)", (runtime) => {
  let server: ServerProcess;
  let key: string;

  beforeAll(async () => {
    server = await startServerProcess({
      env: {
        SANDBOX_RUNTIME: runtime,
        MAX_RUNNING_SANDBOXES: "60",
        SANDBOX_START_TIMEOUT_MS: "60000",
      },
    });
    key = (await server.api("POST", "/api/v1/users", { body: { name: `crash-${runtime}` } })).body
      .api_key;
  });

  afterAll(async () => {
    if (!server) return;
    // Deleted through the API, so a docker control plane also removes its network on shutdown.
    await deleteAll().catch(() => undefined);
    await server.kill("SIGTERM");
    if (runtime === "docker") removeSandboxContainers(server.dataDir);
    await server.dispose();
  });

  const api = () => server.api;

  async function deleteAll(): Promise<void> {
    for (const sandbox of await listAll(api(), "/api/v1/sandboxes/search", key)) {
      await server.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key });
    }
  }

  async function existing() {
    return {
      sandboxes: new Set((await listAll(api(), "/api/v1/sandboxes/search", key)).map((s) => s.id)),
      conversations: new Set(
        (await listAll(api(), "/api/v1/app-conversations", key)).map((c) => c.id),
      ),
    };
  }

  async function startRunning(): Promise<string> {
    const res = await server.api("POST", "/api/v1/sandboxes", { key, body: {} });
    expect(res.status, res.text).toBe(201);
    await expect
      .poll(
        async () => (await server.api("GET", `/api/v1/sandboxes/${res.body.id}`, { key })).body,
        { timeout: 60_000, interval: 100 },
      )
      .toMatchObject({ status: "RUNNING" });
    return res.body.id;
  }

  /** Restarts after the kill and checks every acknowledged operation; returns the figures. */
  async function restartAndCheck(
    scenario: string,
    before: Awaited<ReturnType<typeof existing>>,
    outcomes: Outcome[],
  ) {
    await server.restart();
    expect(await waitForSettled(server.dataDir, 120_000)).toEqual([]);
    const lost = await findLost(api(), key, outcomes);
    const duplicated = await countDuplicates(api(), key, before, outcomes);
    const figures = figuresOf(`SIGKILL ${scenario} (${runtime})`, outcomes, lost, duplicated);
    const mismatches =
      runtime === "process"
        ? await findMismatches(server.dataDir)
        : findDockerMismatches(server.dataDir);
    return { figures, lost, duplicated, mismatches };
  }

  it(
    "during 20 sandbox creates: every acknowledged sandbox comes back RUNNING",
    SLOW,
    async ({ task }) => {
      const before = await existing();
      const ops = Array.from({ length: 20 }, () =>
        track("create sandbox", null, () =>
          server.api("POST", "/api/v1/sandboxes", { key, body: {} }),
        ),
      );
      // Killed once half are acknowledged: the rest are in flight, the acknowledged ones launching.
      await expect
        .poll(() => ops.filter((op) => op.outcome.response !== null).length, {
          timeout: 60_000,
          interval: 5,
        })
        .toBeGreaterThanOrEqual(10);
      await server.kill("SIGKILL");
      await Promise.all(ops.map((op) => op.done));
      const outcomes = ops.map((op) => op.outcome);

      const result = await restartAndCheck("during 20 creates", before, outcomes);
      task.meta.faultFigures = [result.figures];
      expect(result.figures.acknowledged).toBeGreaterThanOrEqual(10);
      expect(result.lost).toEqual([]);
      expect(result.duplicated).toBe(0);
      expect(result.mismatches).toEqual([]);
      // Each acknowledged sandbox is usable as it is: resume says RUNNING (never "not found").
      for (const outcome of outcomes.filter((o) => o.response?.status === 201)) {
        const resumed = await server.api(
          "POST",
          `/api/v1/sandboxes/${outcome.response?.body.id}/resume`,
          {
            key,
          },
        );
        expect(resumed.body.status, resumed.text).toBe("RUNNING");
      }
      await deleteAll();
    },
  );

  // Different moments: before anything is answered, with some answered, with most answered.
  it.for([0, 3, 8])(
    "after %i answers to creates, conversations, pauses, resumes and deletes: none acknowledged is lost",
    SLOW,
    async (answers, { task }) => {
      const running = [await startRunning(), await startRunning(), await startRunning()];
      const paused = [await startRunning(), await startRunning()];
      for (const id of paused) {
        expect((await server.api("POST", `/api/v1/sandboxes/${id}/pause`, { key })).status).toBe(
          200,
        );
      }
      const before = await existing();
      const post = (route: string) => () => server.api("POST", route, { key, body: {} });
      const ops = [
        ...Array.from({ length: 3 }, () =>
          track("create conversation", null, post("/api/v1/app-conversations")),
        ),
        ...Array.from({ length: 3 }, () =>
          track("create sandbox", null, post("/api/v1/sandboxes")),
        ),
        track("pause", running[0] ?? "", post(`/api/v1/sandboxes/${running[0]}/pause`)),
        track("pause", running[1] ?? "", post(`/api/v1/sandboxes/${running[1]}/pause`)),
        track("resume", paused[0] ?? "", post(`/api/v1/sandboxes/${paused[0]}/resume`)),
        track("delete", paused[1] ?? "", () =>
          server.api("DELETE", `/api/v1/sandboxes/${paused[1]}`, { key }),
        ),
        track("delete", running[2] ?? "", () =>
          server.api("DELETE", `/api/v1/sandboxes/${running[2]}`, { key }),
        ),
      ];
      await expect
        .poll(() => ops.filter((op) => op.outcome.response !== null).length, {
          timeout: 60_000,
          interval: 2,
        })
        .toBeGreaterThanOrEqual(answers);
      await server.kill("SIGKILL");
      await Promise.all(ops.map((op) => op.done));

      const outcomes = ops.map((op) => op.outcome);
      const result = await restartAndCheck(
        `after ${answers} of 11 mixed operations answered`,
        before,
        outcomes,
      );
      task.meta.faultFigures = [result.figures];
      expect(result.lost).toEqual([]);
      expect(result.duplicated).toBe(0);
      expect(result.mismatches).toEqual([]);
      // And it still works: a new conversation comes up and takes a message.
      const fresh = await server.api("POST", "/api/v1/app-conversations", { key, body: {} });
      expect(fresh.status, fresh.text).toBe(201);
      const sent = await server.api(
        "POST",
        `/api/v1/app-conversations/${fresh.body.id}/send-message`,
        {
          key,
          body: { role: "user", content: [{ type: "text", text: "after the kill" }], run: false },
        },
      );
      expect(sent.status, sent.text).toBe(200);
      await deleteAll();
    },
  );
});
