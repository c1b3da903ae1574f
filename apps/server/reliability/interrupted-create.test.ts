import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findDockerMismatches,
  removeSandboxContainers,
  sandboxContainers,
} from "./lib/docker-sandboxes";
import { findMismatches, waitForSettled } from "./lib/invariants";
import { listAll } from "./lib/pages";
import { readRecords, sandboxProcesses } from "./lib/sandboxes";
import { type ServerProcess, startServerProcess } from "./lib/server-process";

/**
 * A conversation create ends whole or not at all: the control plane is SIGKILLed in the middle of
 * `POST /app-conversations` — once its start task is recorded, once the agent server is launched,
 * once the sandbox is RUNNING, and 30 ms later — and restarted. Afterwards every sandbox has a
 * conversation or is gone, no start task is left unfinished, and the create's Idempotency-Key
 * replays a completed conversation (or, rolled back, runs the create anew).
 */
const SLOW = { timeout: 300_000 };
const UNFINISHED = new Set(["WORKING", "WAITING_FOR_SANDBOX", "STARTING_CONVERSATION"]);

type Point =
  | "start task recorded"
  | "agent server launched"
  | "sandbox RUNNING"
  | "RUNNING + 30 ms";
const POINTS: Point[] = [
  "start task recorded",
  "agent server launched",
  "sandbox RUNNING",
  "RUNNING + 30 ms",
];

describe.each(["process", "docker"] as const)(
  "conversation create interrupted (%s runtime)",
  (runtime) => {
    let server: ServerProcess;
    let key: string;

    beforeAll(async () => {
      server = await startServerProcess({ env: { SANDBOX_RUNTIME: runtime } });
      key = (await server.api("POST", "/api/v1/users", { body: { name: `cut-${runtime}` } })).body
        .api_key;
    });

    afterAll(async () => {
      if (!server) return;
      for (const sandbox of await listAll(server.api, "/api/v1/sandboxes/search", key).catch(
        () => [],
      )) {
        await server
          .api("DELETE", `/api/v1/sandboxes/${sandbox.id}`, { key })
          .catch(() => undefined);
      }
      await server.kill("SIGTERM");
      if (runtime === "docker") removeSandboxContainers(server.dataDir);
      await server.dispose();
    });

    /** Whether the create has reached the point, read from the store and the runtime. */
    async function reached(point: Point, since: Set<string>): Promise<boolean> {
      const records = readRecords(server.dataDir);
      const tasks = records.startTasks.filter((t) => !since.has(t.id));
      if (point === "start task recorded") return tasks.length > 0;
      const sandboxIds = tasks.map((t) => t.sandboxId).filter((id): id is string => id !== null);
      if (point === "agent server launched") {
        if (runtime === "docker") {
          const containers = new Set(sandboxContainers(server.dataDir).map((c) => c.sandboxId));
          return sandboxIds.some((id) => containers.has(id));
        }
        const processes = await sandboxProcesses(server.dataDir);
        return sandboxIds.some((id) => processes.has(id));
      }
      return records.sandboxes.some((s) => sandboxIds.includes(s.id) && s.status === "RUNNING");
    }

    it.for(POINTS)(
      "SIGKILLed at '%s': every sandbox has a conversation or is gone",
      SLOW,
      async (point) => {
        const since = new Set(readRecords(server.dataDir).startTasks.map((t) => t.id));
        const idempotencyKey = `cut-${runtime}-${point}`;
        const body = { title: point };
        const create = () =>
          server.api("POST", "/api/v1/app-conversations", {
            key,
            body,
            headers: { "idempotency-key": idempotencyKey },
          });
        const first = create().catch(() => null);
        for (;;) {
          if (await reached(point, since)) break;
          await sleep(2);
        }
        if (point === "RUNNING + 30 ms") await sleep(30);
        await server.kill("SIGKILL");
        // Usually unanswered; a create that finished within the 30 ms was answered, and must hold.
        await first;

        await server.restart();
        expect(await waitForSettled(server.dataDir, 120_000)).toEqual([]);
        // The restarted control plane settles the create in the background.
        await expect
          .poll(
            () =>
              readRecords(server.dataDir).startTasks.filter(
                (t) => !since.has(t.id) && UNFINISHED.has(t.status),
              ),
            { timeout: 120_000, interval: 100 },
          )
          .toEqual([]);
        const records = readRecords(server.dataDir);
        const [task] = records.startTasks.filter((t) => !since.has(t.id));
        expect(task, "the create's start task").toBeDefined();
        if (!task) return;
        const live = records.conversations.filter((c) => !c.archived);
        for (const sandbox of records.sandboxes.filter((s) => s.ownerId !== "usr_warm_pool")) {
          expect(
            live.some((c) => c.sandboxId === sandbox.id),
            `sandbox ${sandbox.id} (${sandbox.status}) has a conversation`,
          ).toBe(true);
        }
        const mismatches =
          runtime === "process"
            ? await findMismatches(server.dataDir)
            : findDockerMismatches(server.dataDir);
        expect(mismatches).toEqual([]);

        const retried = await create();
        expect(retried.status, retried.text).toBe(201);
        if (task.status === "READY") {
          // Completed: readable, and the key replays it.
          const read = await server.api("GET", `/api/v1/app-conversations/${task.id}`, { key });
          expect(read.status, read.text).toBe(200);
          expect(retried.body.id).toBe(task.id);
        } else {
          expect(task.status).toBe("ERROR");
          expect(task.detail).toMatch(/control plane stopped/);
          expect(records.sandboxes.some((s) => s.id === task.sandboxId)).toBe(false);
          // Rolled back: the key is free, and the retry is a new conversation.
          expect(retried.body.id).not.toBe(task.id);
        }
        await server.api("DELETE", `/api/v1/sandboxes/${retried.body.sandbox_id}`, { key });
      },
    );
  },
);
