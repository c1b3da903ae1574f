/**
 * A conversation create cut short on one replica is settled by another: replica A is SIGKILLed
 * once the sandbox its create started is RUNNING; replica B (the duties move to it) completes or
 * rolls the create back once A's heartbeat has expired. Afterwards the sandbox has a conversation
 * or is gone, and no start task is left unfinished.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall } from "../test/api-call";
import { type Replica, startReplica } from "./lib/replica";

const ADMIN_KEY = "ssk_interrupted_admin_key_0123456789";
const baseUrl = inject("testDatabaseUrl");
if (!baseUrl) throw new Error("the replica suite needs PostgreSQL: TEST_DATABASE_URL or CI=true");

describe("a conversation create cut short on one of two replicas", () => {
  const database = `interrupted_${randomBytes(5).toString("hex")}`;
  const instance = `interrupted-${randomBytes(4).toString("hex")}`;
  const databaseUrl = (() => {
    const u = new URL(baseUrl);
    u.pathname = `/${database}`;
    return u.toString();
  })();
  const secretsKey = randomBytes(32).toString("hex");
  const dataDirs: string[] = [];
  const replicas: Replica[] = [];

  async function sql(text: string): Promise<Record<string, unknown>[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  }

  async function launch(name: string): Promise<Replica> {
    const dataDir = mkdtempSync(path.join(tmpdir(), `sandbox-interrupted-${name}-`));
    dataDirs.push(dataDir);
    writeFileSync(path.join(dataDir, "instance-id"), `${instance}\n`);
    const replica = await startReplica(name, ADMIN_KEY, {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: secretsKey,
      ADMIN_API_KEY: ADMIN_KEY,
      SANDBOX_RUNTIME: "docker",
      SANDBOX_IMAGE: process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE,
      LEASE_TTL_MS: "3000",
      LEASE_RENEW_MS: "1000",
    });
    replicas.push(replica);
    return replica;
  }

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
  });

  afterAll(async () => {
    for (const replica of replicas.filter((r) => r.alive())) await replica.kill("SIGTERM");
    const docker = (...args: string[]) =>
      execFileSync("docker", args, { encoding: "utf8", timeout: 60_000 }).trim();
    const left = docker("ps", "-aq", "--filter", `label=sandbox-server.managed=${instance}`);
    if (left) docker("rm", "-f", ...left.split("\n"));
    const network = `sandbox-server-${instance}`;
    if (docker("network", "ls", "-q", "--filter", `name=^${network}$`)) {
      docker("network", "rm", network);
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is settled by the surviving replica: the sandbox has a conversation or is gone", async () => {
    const a = await launch("a");
    const b = await launch("b");
    const creating = apiCall(a.url, "POST", "/api/v1/app-conversations", {
      key: ADMIN_KEY,
      body: { title: "cut short" },
    }).catch(() => null);
    let sandboxId = "";
    for (;;) {
      const [row] = await sql(
        "select s.id from conversation_start_tasks t join sandboxes s on s.id = t.sandbox_id where s.status = 'RUNNING'",
      );
      if (row) {
        sandboxId = String(row.id);
        break;
      }
      await sleep(5);
    }
    await a.kill("SIGKILL");
    expect((await creating)?.status).not.toBe(201);

    await expect
      .poll(
        async () =>
          (
            await sql(
              "select status from conversation_start_tasks where status in ('WORKING', 'WAITING_FOR_SANDBOX', 'STARTING_CONVERSATION')",
            )
          ).length,
        { timeout: 90_000, interval: 250 },
      )
      .toBe(0);
    const [task] = await sql("select id, status from conversation_start_tasks");
    const sandbox = await apiCall(b.url, "GET", `/api/v1/sandboxes/${sandboxId}`, {
      key: ADMIN_KEY,
    });
    if (task?.status === "READY") {
      const conversation = await apiCall(b.url, "GET", `/api/v1/app-conversations/${task.id}`, {
        key: ADMIN_KEY,
      });
      expect(conversation.status).toBe(200);
      expect(conversation.body.sandbox_id).toBe(sandboxId);
      await apiCall(b.url, "DELETE", `/api/v1/sandboxes/${sandboxId}`, { key: ADMIN_KEY });
    } else {
      expect(task?.status).toBe("ERROR");
      expect(sandbox.status).toBe(404);
    }
  });
});
