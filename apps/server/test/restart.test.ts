import { DEFAULT_SANDBOX_EGRESS } from "@sandbox-server/egress";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readEvents, waitForExecution } from "./agent";
import { killAgentServer, startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: true });

it("keeps RUNNING and PAUSED sandboxes exactly as they were across a control-plane restart", async () => {
  const running = (await t.api("POST", "/api/v1/app-conversations", { body: {} })).body;
  const paused = (await t.api("POST", "/api/v1/app-conversations", { body: {} })).body;
  await t.api("POST", `/api/v1/sandboxes/${paused.sandbox_id}/pause`);

  await t.restart();

  const runningAfter = await t.api("GET", `/api/v1/sandboxes/${running.sandbox_id}`);
  expect(runningAfter.body.status).toBe("RUNNING");
  expect(runningAfter.body.agent_server_url).toBe(
    (await t.api("GET", `/api/v1/app-conversations/${running.id}`)).body.conversation_url.replace(
      /\/api\/conversations\/.*$/,
      "",
    ),
  );
  expect((await t.api("GET", `/api/v1/sandboxes/${paused.sandbox_id}`)).body.status).toBe("PAUSED");
  // The paused one is still frozen: the runtime agrees with the record.
  expect((await t.runtime.inspect(paused.sandbox_id)).state).toBe("paused");

  const sent = await t.api("POST", `/api/v1/app-conversations/${running.id}/send-message`, {
    body: message("echo after-restart"),
  });
  expect(sent.status).toBe(200);
  const refused = await t.api("POST", `/api/v1/app-conversations/${paused.id}/send-message`, {
    body: message("echo too-early"),
  });
  expect(refused.status).toBe(409);

  const resumed = await t.api("POST", `/api/v1/sandboxes/${paused.sandbox_id}/resume`);
  expect(resumed.body.status).toBe("RUNNING");
  const afterResume = await t.api("POST", `/api/v1/app-conversations/${paused.id}/send-message`, {
    body: message("echo after-resume"),
  });
  expect(afterResume.status).toBe(200);

  for (const conv of [running, paused]) {
    const read = (await t.api("GET", `/api/v1/app-conversations/${conv.id}`)).body;
    await waitForExecution(read.conversation_url, read.session_api_key);
    const events = await readEvents(read.conversation_url, read.session_api_key);
    expect(JSON.stringify(events)).toMatch(/after-(restart|resume)/);
  }
});

it("removes a labelled sandbox that has no record, at the next start", async () => {
  const orphan = await t.runtime.start({
    sandboxId: "sb_orphan_without_record",
    ownerId: "usr_nobody",
    specId: "default",
    sessionApiKey: "orphan-key",
    env: {},
  });
  expect(orphan.state).not.toBe("missing");
  await t.restart();
  expect((await t.runtime.inspect("sb_orphan_without_record")).state).toBe("missing");
});

it("relaunches acknowledged sandboxes that are gone after a restart, and keeps an acknowledged pause", async () => {
  const running = (await t.api("POST", "/api/v1/app-conversations", { body: {} })).body;
  const before = await t.api("POST", `/api/v1/app-conversations/${running.id}/send-message`, {
    body: { ...message("before the restart"), run: false },
  });
  expect(before.status).toBe(200);
  const paused = (await t.api("POST", "/api/v1/app-conversations", { body: {} })).body;
  expect((await t.api("POST", `/api/v1/sandboxes/${paused.sandbox_id}/pause`)).status).toBe(200);
  // Acknowledged (201) but not launched yet: what a control plane killed right after its answer
  // leaves behind (the row, and the runtime's durable launch record where it keeps one).
  const me = (await t.api("GET", "/api/v1/users/me")).body.id as string;
  const deps = t.server.core.deps;
  const now = Date.now();
  const pending = await deps.repos.sandboxes.insert({
    id: `sb_pending${now}`,
    ownerId: me,
    specId: "default",
    runtime: t.runtime.kind,
    status: "STARTING",
    statusDetail: null,
    sessionApiKey: "pending-session-key",
    agentServerUrl: null,
    labels: {},
    env: {},
    network: DEFAULT_SANDBOX_EGRESS,
    lastActivityAt: null,
    createdAt: now,
    updatedAt: now,
  });
  await t.runtime.register?.({
    sandboxId: pending.id,
    ownerId: me,
    specId: "default",
    sessionApiKey: pending.sessionApiKey,
    env: {},
    labels: {},
  });
  // The processes die while no control plane watches (its supervisor is stopped first).
  t.server.core.supervisor.stop();
  await killAgentServer(t, running.sandbox_id);
  if (t.runtime.kind === "process") await killAgentServer(t, paused.sandbox_id);

  await t.restart();

  for (const id of [running.sandbox_id, pending.id]) {
    const back = await t.waitForStatus(id, "RUNNING", undefined, 30_000);
    expect(back.body.status_detail).toMatch(/^Restarted after a control-plane restart/);
  }
  // Relaunched from its workspace: the conversation and its events are still there.
  const read = (await t.api("GET", `/api/v1/app-conversations/${running.id}`)).body;
  const texts = JSON.stringify(await readEvents(read.conversation_url, read.session_api_key));
  expect(texts).toContain("before the restart");
  const after = await t.api("POST", `/api/v1/app-conversations/${running.id}/send-message`, {
    body: { ...message("after the relaunch"), run: false },
  });
  expect(after.status).toBe(200);

  // The pause holds; where its processes ended, resume relaunches it.
  const stillPaused = (await t.api("GET", `/api/v1/sandboxes/${paused.sandbox_id}`)).body;
  expect(stillPaused.status).toBe("PAUSED");
  if (t.runtime.kind === "process")
    expect(stillPaused.status_detail).toMatch(/resume relaunches it/);
  const resumed = await t.api("POST", `/api/v1/sandboxes/${paused.sandbox_id}/resume`);
  expect(resumed.body.status).toBe("RUNNING");
  const sent = await t.api("POST", `/api/v1/app-conversations/${paused.id}/send-message`, {
    body: { ...message("after the resume"), run: false },
  });
  expect(sent.status).toBe(200);
});
