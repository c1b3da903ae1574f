/**
 * Several control planes on one PostgreSQL, as real processes on the docker
 * runtime (its daemon is shared by both; the process runtime's children belong to one process):
 * one API through every replica, the running limit across replicas, and the replica holding the
 * background duties SIGKILLed — the other takes them over within 30 s, stores every event the
 * agent server has (its own event list is the truth) and delivers the webhook that was in flight
 * (the same webhook-id again, as at-least-once allows).
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
import { type AgentEvent, readEvents } from "../test/agent";
import { startReceiver } from "../test/receiver";
import { type Replica, startReplica } from "./lib/replica";

const ADMIN_KEY = "ssk_replicas_admin_key_0123456789";
/** The design's bound: a SIGKILLed replica's duties move to a live one within 30 s. */
const TAKEOVER_BOUND_MS = 30_000;
const LIMIT = 3;

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: true });

interface Conversation {
  id: string;
  sandbox_id: string;
  conversation_url: string;
  session_api_key: string;
}

const baseUrl = inject("testDatabaseUrl");
if (!baseUrl) throw new Error("the replica suite needs PostgreSQL: TEST_DATABASE_URL or CI=true");

describe("several replicas on one PostgreSQL", () => {
  const database = `replicas_${randomBytes(5).toString("hex")}`;
  const databaseUrl = (() => {
    const u = new URL(baseUrl);
    u.pathname = `/${database}`;
    return u.toString();
  })();
  const dataDirs: string[] = [];
  const replicas: Replica[] = [];
  let a: Replica;
  let b: Replica;

  async function sql(text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  async function admin(text: string): Promise<void> {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }

  const dutiesHolder = async () =>
    (
      await sql(
        "select holder from leases where name = 'duties' and expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint",
      )
    )[0]?.holder as string | undefined;

  async function until<T>(
    what: string,
    probe: () => Promise<T | undefined | null | false>,
    timeoutMs = 90_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  async function launch(name: string, instance?: string): Promise<Replica> {
    const dataDir = mkdtempSync(path.join(tmpdir(), `sandbox-replica-${name}-`));
    dataDirs.push(dataDir);
    // Not `test-*`: other suites' teardowns sweep those, also while this suite runs.
    if (instance) writeFileSync(path.join(dataDir, "instance-id"), `${instance}\n`);
    const replica = await startReplica(name, ADMIN_KEY, {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: secretsKey,
      ADMIN_API_KEY: ADMIN_KEY,
      SANDBOX_RUNTIME: "docker",
      SANDBOX_IMAGE: process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE,
      MAX_RUNNING_SANDBOXES: String(LIMIT),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    });
    replicas.push(replica);
    return replica;
  }

  const secretsKey = randomBytes(32).toString("hex");
  const instance = `replicas-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    a = await launch("a", instance);
    // The first replica takes the duties (the lease table says so).
    await until("replica a to hold the duties", async () => (await dutiesHolder()) === a.replicaId);
    b = await launch("b");
    expect(a.replicaId).not.toBe(b.replicaId);
  });

  afterAll(async () => {
    const alive = replicas.filter((r) => r.alive());
    const any = alive[0];
    if (any) {
      const list = await any.api("GET", "/api/v1/sandboxes?limit=100");
      for (const sandbox of list.body?.items ?? []) {
        await any.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
      }
    }
    for (const replica of alive) await replica.kill("SIGTERM");
    // What a failed test may have left: the instance's containers, then its network.
    const docker = (...args: string[]) =>
      execFileSync("docker", args, { encoding: "utf8", timeout: 60_000 }).trim();
    const left = docker("ps", "-aq", "--filter", `label=sandbox-server.managed=${instance}`);
    if (left) docker("rm", "-f", ...left.split("\n"));
    const network = `sandbox-server-${instance}`;
    if (docker("network", "ls", "-q", "--filter", `name=^${network}$`)) {
      docker("network", "rm", network);
    }
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  async function createSandbox(via: Replica): Promise<string> {
    const created = await via.api("POST", "/api/v1/sandboxes", {});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id;
  }

  async function waitForStatus(via: Replica, id: string, status: string) {
    const read = await via.api("GET", `/api/v1/sandboxes/${id}?wait_for=${status}&timeout_s=60`);
    expect(read.status).toBe(200);
    expect(read.body.status, JSON.stringify(read.body)).toBe(status);
    return read.body;
  }

  async function createConversation(via: Replica, sandboxId: string, text: string) {
    const created = await via.api("POST", "/api/v1/app-conversations", {
      sandbox_id: sandboxId,
      initial_message: message(text),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as Conversation;
  }

  async function send(via: Replica, conversationId: string, text: string) {
    return via.api(
      "POST",
      `/api/v1/app-conversations/${conversationId}/send-message`,
      message(text),
    );
  }

  async function storedEvents(via: Replica, conversationId: string): Promise<AgentEvent[]> {
    const items: AgentEvent[] = [];
    let pageId: string | null = null;
    do {
      const page: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
      const res = await via.api(
        "GET",
        `/api/v1/app-conversations/${conversationId}/events?limit=100${page}`,
      );
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      pageId = res.body.next_page_id;
    } while (pageId);
    return items;
  }

  /**
   * Waits until the agent server's own event list shows `mustInclude` and the store holds exactly
   * that list (same ids, same order): nothing lost, nothing twice.
   */
  async function expectAllEventsStored(via: Replica, conv: Conversation, mustInclude: string) {
    const ids = (events: AgentEvent[]) => events.map((e) => e.id);
    let agent: AgentEvent[] = [];
    let stored: AgentEvent[] = [];
    await until(`the stored events of ${conv.id} to match the agent server's`, async () => {
      agent = await readEvents(conv.conversation_url, conv.session_api_key);
      if (!JSON.stringify(agent).includes(mustInclude)) return false;
      stored = await storedEvents(via, conv.id);
      return JSON.stringify(ids(stored)) === JSON.stringify(ids(agent));
    }).catch((error: unknown) => {
      expect(ids(stored), String(error)).toEqual(ids(agent));
      throw error;
    });
    expect(ids(stored)).toEqual(ids(agent));
  }

  it("serves one API: what one replica created is read, used, paused, resumed and deleted through the other", async () => {
    const id = await createSandbox(a);
    // B hears nothing of A's moves in memory: it reads them from the database.
    await waitForStatus(b, id, "RUNNING");
    const conv = await createConversation(b, id, "echo created-through-b");
    expect((await send(a, conv.id, "echo sent-through-a")).status).toBe(200);
    // Followed by the duties' holder (A), stored once, readable through either replica.
    await expectAllEventsStored(b, conv, "sent-through-a");
    expect((await a.api("GET", `/api/v1/app-conversations/${conv.id}`)).body.sandbox_id).toBe(id);

    const paused = await b.api("POST", `/api/v1/sandboxes/${id}/pause`);
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body.status).toBe("PAUSED");
    expect((await a.api("GET", `/api/v1/sandboxes/${id}`)).body.status).toBe("PAUSED");
    const refused = await send(a, conv.id, "echo while-paused");
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("SANDBOX_NOT_RUNNING");

    const resumed = await a.api("POST", `/api/v1/sandboxes/${id}/resume`);
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.status).toBe("RUNNING");
    expect((await send(b, conv.id, "echo after-resume")).status).toBe(200);
    const current = (await b.api("GET", `/api/v1/app-conversations/${conv.id}`)).body;
    await expectAllEventsStored(a, { ...conv, ...current }, "after-resume");

    const deleted = await b.api("DELETE", `/api/v1/sandboxes/${id}`);
    expect([200, 204]).toContain(deleted.status);
    expect((await a.api("GET", `/api/v1/sandboxes/${id}`)).status).toBe(404);
    expect((await a.api("GET", `/api/v1/app-conversations/${conv.id}`)).body.archived).toBe(true);
    expect((await send(a, conv.id, "echo gone")).status).toBe(410);
  });

  it("holds the running limit across replicas under concurrent creates", async () => {
    const creates = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).api("POST", "/api/v1/sandboxes", {}),
      ),
    );
    const statuses = creates.map((c) => c.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8 - LIMIT);
    const [row] = await sql(
      "select count(*)::int as n from sandboxes where status in ('STARTING', 'RUNNING')",
    );
    expect(row?.n).toBe(LIMIT);
    // Deleted through the replica that did not create them (a delete waits for the start).
    for (const [i, created] of creates.entries()) {
      if (created.status !== 201) continue;
      const other = i % 2 === 0 ? b : a;
      await waitForStatus(other, created.body.id, "RUNNING");
      const deleted = await other.api("DELETE", `/api/v1/sandboxes/${created.body.id}`);
      expect([200, 204]).toContain(deleted.status);
    }
  });

  it("moves the duties to a live replica within 30 s of a SIGKILL: no event lost, the webhook in flight delivered", async () => {
    expect(await dutiesHolder()).toBe(a.replicaId);
    // Holds every request unanswered (a delivery stays in flight at its sender) until released.
    let holding = true;
    const receiver = await startReceiver(() => (holding ? "hang" : 200));
    try {
      const id = await createSandbox(b);
      await waitForStatus(b, id, "RUNNING");
      const conv = await createConversation(b, id, "echo before-the-kill");
      await expectAllEventsStored(b, conv, "before-the-kill");
      const hook = await b.api("POST", "/api/v1/webhooks", {
        url: receiver.url,
        conversation_id: conv.id,
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);

      // A (the duties' holder) stores the events and sends the first delivery, which the
      // receiver holds unanswered: A is killed with it in flight.
      expect((await send(b, conv.id, "echo pending-at-the-kill")).status).toBe(200);
      const inFlight = await until("a delivery held in flight", async () => receiver.received[0]);
      const [claim] = await sql("select claimed_by from webhook_deliveries where id = $1", [
        inFlight.deliveryId,
      ]);
      expect(claim?.claimed_by).toBe(a.replicaId);
      await a.kill("SIGKILL");
      const killedAt = Date.now();
      holding = false;

      // The agent keeps working while nobody follows it: these events exist only on its server.
      expect((await send(b, conv.id, "echo after-the-kill")).status).toBe(200);

      // The lease table names B within the bound.
      await until(
        "replica b to hold the duties",
        async () => (await dutiesHolder()) === b.replicaId,
        Math.max(0, killedAt + TAKEOVER_BOUND_MS - Date.now()),
      );

      // Every event the agent server has is stored, exactly once, in its order.
      await expectAllEventsStored(b, conv, "after-the-kill");
      // The delivery in flight at the kill arrives (again: the same webhook-id) and is answered.
      await until("the held delivery to be delivered again", async () =>
        receiver.received.some((r) => r.deliveryId === inFlight.deliveryId && r.answered === 200),
      );
      // Nothing of the webhook stays undelivered.
      const rows = await until("every delivery to succeed", async () => {
        const all = await sql("select id, status from webhook_deliveries where webhook_id = $1", [
          hook.body.id,
        ]);
        return all.length > 0 && all.every((r) => r.status === "succeeded") && all;
      });
      const answered = new Set(
        receiver.received.filter((r) => r.answered === 200).map((r) => r.deliveryId),
      );
      for (const row of rows) expect(answered.has(String(row.id))).toBe(true);

      // B runs the supervisor now: a delete through it completes.
      const deleted = await b.api("DELETE", `/api/v1/sandboxes/${id}`);
      expect([200, 204]).toContain(deleted.status);
    } finally {
      await receiver.close();
    }
  });
});
