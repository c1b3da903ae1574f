import { afterAll, beforeAll, expect, it } from "vitest";
import { readEvents, waitForExecution } from "./agent";
import { startTestServer, type TestServer } from "./harness";

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
