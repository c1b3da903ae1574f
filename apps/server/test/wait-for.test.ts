import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const settled = ["idle", "finished", "paused", "waiting_for_confirmation", "error", "stuck"];

describe("GET /sandboxes/{id}?wait_for= (long poll)", () => {
  it("answers once the sandbox is RUNNING, on both surfaces, and the current state at the timeout", async () => {
    const started = await t.api("POST", "/api/v1/sandboxes", { body: {} });
    expect(started.status).toBe(201);
    const id = started.body.id as string;
    const running = await t.api("GET", `/api/v1/sandboxes/${id}?wait_for=RUNNING&timeout_s=60`);
    expect(running.status).toBe(200);
    expect(running.body.status).toBe("RUNNING");
    expect(running.body.agent_server_url).toMatch(/^http:\/\//);

    const viaTrpc = await t.trpc("query", "sandboxes.get", {
      id,
      wait_for: "RUNNING",
      timeout_s: 5,
    });
    expect(viaTrpc.status).toBe(200);
    expect(viaTrpc.body.status).toBe("RUNNING");

    expect((await t.api("POST", `/api/v1/sandboxes/${id}/pause`)).status).toBe(200);
    // A status it does not reach by itself: after timeout_s, 200 with the current state.
    const timedOut = await t.api("GET", `/api/v1/sandboxes/${id}?wait_for=RUNNING&timeout_s=1`);
    expect(timedOut.status).toBe(200);
    expect(timedOut.body.status).toBe("PAUSED");

    // Resumed while a wait is open: the wait answers RUNNING.
    const waiting = t.api("GET", `/api/v1/sandboxes/${id}?wait_for=RUNNING&timeout_s=60`);
    expect((await t.api("POST", `/api/v1/sandboxes/${id}/resume`)).status).toBe(200);
    expect((await waiting).body.status).toBe("RUNNING");

    // Deleted while a wait is open: the wait answers 404 like any read.
    const gone = t.api("GET", `/api/v1/sandboxes/${id}?wait_for=PAUSED&timeout_s=60`);
    expect((await t.api("DELETE", `/api/v1/sandboxes/${id}`)).status).toBe(200);
    const answer = await gone;
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("SANDBOX_NOT_FOUND");
  });

  it("refuses a bad wait_for or timeout_s with 422", async () => {
    const started = await t.api("POST", "/api/v1/sandboxes", { body: {} });
    const id = started.body.id as string;
    for (const query of ["wait_for=SOON", "wait_for=RUNNING&timeout_s=61", "timeout_s=0"]) {
      const answer = await t.api("GET", `/api/v1/sandboxes/${id}?${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body.code).toBe("VALIDATION_FAILED");
    }
    // Without wait_for it is a plain read, whatever the sandbox's status.
    expect((await t.api("GET", `/api/v1/sandboxes/${id}?timeout_s=5`)).status).toBe(200);
    await t.api("DELETE", `/api/v1/sandboxes/${id}`);
  });
});

describe("GET /app-conversations/{id}?wait_for= (long poll on execution_status)", () => {
  it("answers once the agent has settled, and the current state at the timeout", async () => {
    const created = await t.api("POST", "/api/v1/app-conversations", {
      body: {
        initial_message: { content: [{ type: "text", text: "echo waited" }], run: true },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const done = await t.api(
      "GET",
      `/api/v1/app-conversations/${id}?wait_for=settled&timeout_s=60`,
    );
    expect(done.status).toBe(200);
    expect(settled).toContain(done.body.execution_status);

    const viaTrpc = await t.trpc("query", "conversations.get", {
      id,
      wait_for: "settled",
      timeout_s: 5,
    });
    expect(settled).toContain(viaTrpc.body.execution_status);

    // A status it does not reach: after timeout_s, the conversation as it is.
    const timedOut = await t.api(
      "GET",
      `/api/v1/app-conversations/${id}?wait_for=stuck&timeout_s=1`,
    );
    expect(timedOut.status).toBe(200);
    expect(timedOut.body.execution_status).not.toBe("stuck");

    // Its sandbox paused: nothing can change by itself, so the wait answers at once.
    const sandboxId = created.body.sandbox_id as string;
    expect((await t.api("POST", `/api/v1/sandboxes/${sandboxId}/pause`)).status).toBe(200);
    const paused = await t.api(
      "GET",
      `/api/v1/app-conversations/${id}?wait_for=running&timeout_s=60`,
    );
    expect(paused.status).toBe(200);
    expect(paused.body.sandbox_status).toBe("PAUSED");
    await t.api("DELETE", `/api/v1/sandboxes/${sandboxId}`);
  });
});
