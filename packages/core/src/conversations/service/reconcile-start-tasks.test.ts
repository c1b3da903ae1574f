import { randomUUID } from "node:crypto";
import type { StartTaskRow } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequest } from "../../../test/agent";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { waitForStatus } from "../../../test/wait";
import { recordConversation } from "./create-conversation";
import { reconcileStartTasks } from "./reconcile-start-tasks";
import { failStartTask } from "./start-tasks";

// Start tasks as a control plane killed mid-create leaves them (written straight to the store),
// settled by the reconcile a restarted one runs.
let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
});

async function runningSandbox() {
  const started = await alice.caller.sandboxes.start({});
  return waitForStatus(alice.caller, started.id, "RUNNING");
}

async function leftTask(fields: Partial<StartTaskRow> & { request: Record<string, unknown> }) {
  const id = randomUUID();
  const task: StartTaskRow = {
    id,
    ownerId: alice.id,
    status: "STARTING_CONVERSATION",
    detail: null,
    appConversationId: null,
    sandboxId: null,
    agentServerUrl: null,
    replicaId: "rpl_dead",
    idempotencyRecordId: null,
    createdAt: t.deps.now() - 1000,
    updatedAt: t.deps.now() - 1000,
    ...fields,
    request: { conversation_id: id, sandbox_id: null, title: "left", ...fields.request },
  };
  await t.store.startTasks.insert(task);
  return task;
}

async function idempotencyRecord(key: string): Promise<string> {
  const id = `idk_${randomUUID().replaceAll("-", "")}`;
  await t.store.idempotencyKeys.insert({
    id,
    userId: alice.id,
    key,
    requestHash: "h",
    status: "in_progress",
    responseStatus: null,
    responseBody: null,
    createdAt: t.deps.now(),
  });
  return id;
}

describe("reconcileStartTasks", () => {
  it("completes a create whose conversation the agent server holds, and completes its key", async () => {
    const sandbox = await runningSandbox();
    const recordId = await idempotencyRecord("k-complete");
    const task = await leftTask({
      sandboxId: sandbox.id,
      idempotencyRecordId: recordId,
      request: {},
    });
    const created = await agentRequest(
      sandbox.agent_server_url ?? "",
      sandbox.session_api_key ?? null,
      "POST",
      "/api/conversations",
      { conversation_id: task.id, agent: { kind: "shell" } },
    );
    expect(created.status).toBeLessThan(300);

    await reconcileStartTasks(t.deps, t.deps.now());

    expect(await t.store.startTasks.get(task.id)).toMatchObject({
      status: "READY",
      appConversationId: task.id,
    });
    const read = await alice.caller.conversations.get({ id: task.id });
    expect(read).toMatchObject({
      sandbox_id: sandbox.id,
      title: "left",
      sandbox_status: "RUNNING",
    });
    const record = await t.store.idempotencyKeys.get(alice.id, "k-complete");
    expect(record).toMatchObject({ status: "completed", responseStatus: 201 });
    expect(JSON.parse(record?.responseBody ?? "null")).toMatchObject({
      id: task.id,
      status: "READY",
    });
  });

  it("rolls back a create cut short: the task ends in ERROR, the sandbox it started is removed", async () => {
    const sandbox = await runningSandbox();
    const recordId = await idempotencyRecord("k-rollback");
    const task = await leftTask({
      sandboxId: sandbox.id,
      idempotencyRecordId: recordId,
      request: {},
    });

    await reconcileStartTasks(t.deps, t.deps.now());

    expect(await t.store.startTasks.get(task.id)).toMatchObject({ status: "ERROR" });
    expect(await t.store.sandboxes.get(sandbox.id)).toBeUndefined();
    expect(await t.store.idempotencyKeys.get(alice.id, "k-rollback")).toBeUndefined();
  });

  it("never removes a sandbox the request named, and leaves tasks opened since the start", async () => {
    const sandbox = await runningSandbox();
    const named = await leftTask({ sandboxId: sandbox.id, request: { sandbox_id: sandbox.id } });
    const startedAt = t.deps.now();
    const current = await leftTask({ createdAt: startedAt + 1, request: {} });

    await reconcileStartTasks(t.deps, startedAt);

    expect(await t.store.startTasks.get(named.id)).toMatchObject({ status: "ERROR" });
    expect((await t.store.sandboxes.get(sandbox.id))?.status).toBe("RUNNING");
    expect(await t.store.startTasks.get(current.id)).toMatchObject({
      status: "STARTING_CONVERSATION",
    });
  });
});

// A control plane killed right after a create's task went READY (or ERROR) must not leave the key
// "in progress": the task's end and the key's outcome are one transaction.
describe("a create's end and its Idempotency-Key", () => {
  it("READY stores the answer under the key in the same transaction", async () => {
    const sandbox = await runningSandbox();
    const recordId = await idempotencyRecord("k-ready");
    const task = await leftTask({
      sandboxId: sandbox.id,
      idempotencyRecordId: recordId,
      request: {},
    });
    const row = await t.store.sandboxes.get(sandbox.id);
    if (!row) throw new Error("sandbox row missing");

    await recordConversation(t.deps, {
      id: task.id,
      ownerId: alice.id,
      sandbox: row,
      input: { title: "ready" },
      executionStatus: "idle",
    });

    const record = await t.store.idempotencyKeys.get(alice.id, "k-ready");
    expect(record).toMatchObject({ status: "completed", responseStatus: 201 });
    expect(JSON.parse(record?.responseBody ?? "null")).toMatchObject({
      id: task.id,
      status: "READY",
      sandbox_id: sandbox.id,
    });
  });

  it("ERROR frees the key in the same transaction", async () => {
    const recordId = await idempotencyRecord("k-error");
    const task = await leftTask({ idempotencyRecordId: recordId, request: {} });
    expect(await t.store.idempotencyKeys.get(alice.id, "k-error")).toBeDefined();

    await failStartTask(t.deps, task.id, new Error("boom"));

    expect(await t.store.startTasks.get(task.id)).toMatchObject({ status: "ERROR" });
    expect(await t.store.idempotencyKeys.get(alice.id, "k-error")).toBeUndefined();
  });
});
