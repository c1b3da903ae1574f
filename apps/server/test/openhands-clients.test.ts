import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness";
import {
  type Answer,
  type Call,
  client,
  type Frame,
  isAgentReply,
  openEventSocket,
  pollUntil,
  startFakeLlm,
} from "./openhands-calls";

/*
 * OpenHands' own clients against this control plane, each test one client's real call sequence
 * (read from the clients' code: /work/openhands-compat.md §4 cites the files), end to end on the
 * process runtime, through the chain create → start task → READY → send (through
 * conversation_url and through send-message) → events through the search path → pause → resume
 * → delete. Steps a client does not take itself are marked "(chain)"; they use that client's
 * conventions (headers, bodies) against our API.
 */

let t: TestServer;
let key: string;
/** The SDK's Agent talks to it from inside its sandbox: the operator opens its port, as for a local LLM. */
let llm: Awaited<ReturnType<typeof startFakeLlm>>;
const api = (path: string) => `${t.url}/api/v1${path}`;
const text = (value: string) => [{ type: "text", text: value }];

beforeAll(async () => {
  llm = await startFakeLlm("sdk-task-done");
  const port = Number(new URL(llm.baseUrl).port);
  t = await startTestServer({
    runtime: "process",
    operatorEgress: { allow: [{ kind: "cidr", cidr: "127.0.0.1/32", port }] },
  });
  key = await t.createUser("openhands-user");
});

afterAll(async () => {
  await t?.close();
  await llm?.close();
});

/** `GET /app-conversations?ids=<id>` → the one conversation (or null), as every client reads it. */
async function readConversation(call: Call, id: string) {
  const answer = await call("GET", api(`/app-conversations?ids=${id}`));
  expect(answer.status).toBe(200);
  expect(answer.body).toHaveLength(1);
  return answer.body[0];
}

/** (chain) The stored events through OpenHands' search path contain an agent reply with `reply`. */
async function waitForStoredReply(call: Call, id: string, reply: string) {
  const answer = await pollUntil(
    () => call("GET", api(`/conversation/${id}/events/search?limit=100`)),
    (a: Answer) => a.status === 200 && a.body.items.some((e: Frame) => isAgentReply(e, reply)),
    `no stored reply ${reply}`,
  );
  return answer.body.items as Frame[];
}

/** (chain) send-message, the thin proxy: the body forwarded unchanged, the agent runs it. */
async function sendThroughProxy(call: Call, id: string, command: string) {
  const sent = await call("POST", api(`/app-conversations/${id}/send-message`), {
    json: { role: "user", content: text(command), run: true },
  });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ success: true, sandbox_status: "RUNNING", message: null });
}

/** `GET /sandboxes?id=` until RUNNING, as the SDK's and the TS workspace's wait loops do. */
async function waitUntilRunning(call: Call, sandboxId: string) {
  const answer = await pollUntil(
    () => call("GET", api(`/sandboxes?id=${sandboxId}`)),
    (a: Answer) => {
      const status = a.body?.[0]?.status;
      if (status === "ERROR" || status === "MISSING") throw new Error(`sandbox is ${status}`);
      return status === "RUNNING";
    },
    `sandbox ${sandboxId} did not become RUNNING`,
  );
  const sandbox = answer.body[0];
  const agentServer = sandbox.exposed_urls.find((u: { name: string }) => u.name === "AGENT_SERVER");
  expect(agentServer?.url).toMatch(/^http:\/\/(127\.0\.0\.1:\d+|198\.19\.\d+\.\d+:8000)$/);
  // The clients check the agent server's health before using it (no credentials).
  expect((await fetch(`${agentServer.url}/health`)).status).toBe(200);
  return { sandbox, agentServerUrl: agentServer.url as string };
}

describe("web app (OpenHands/frontend)", () => {
  it("boots, starts a conversation as a start task, chats over the socket, stops, starts, renames and deletes it", async () => {
    // The web app sends no Authorization header (a session cookie, or nothing in OSS mode); the
    // API key stands in for the session here (see the README's OpenHands clients table).
    const web = client({ authorization: `Bearer ${key}` }, false);

    // Boot: web-client config (unauthenticated), settings (404 = built-in defaults), the
    // conversation panel's list and the start tasks of the last 20 minutes.
    const config = await fetch(api("/web-client/config"));
    expect(config.status).toBe(200);
    expect(((await config.json()) as { app_mode: string }).app_mode).toBe("oss");
    expect([200, 404]).toContain((await web("GET", api("/settings"))).status);
    const panel = await web("GET", api("/app-conversations/search?limit=20"));
    expect(panel).toMatchObject({ status: 200, body: { items: [] } });
    const since = encodeURIComponent(new Date(Date.now() - 20 * 60_000).toISOString());
    const recent = await web(
      "GET",
      api(`/app-conversations/start-tasks/search?limit=10&created_at__gte=${since}`),
    );
    expect(recent).toMatchObject({ status: 200, body: { items: [] } });

    // 1. Create (v1-conversation-service.api.ts createConversation): explicit nulls.
    const created = await web("POST", api("/app-conversations"), {
      json: {
        selected_repository: null,
        git_provider: null,
        selected_branch: null,
        suggested_task: null,
        title: "Conversation instructions: answer with the output of each command.",
        trigger: "gui",
        parent_conversation_id: null,
        agent_type: "default",
        plugins: null,
        sandbox_id: null,
        llm_model: null,
        initial_message: { role: "user", content: text("echo hello-from-web") },
      },
    });
    expect(created.status).toBeLessThan(300);

    // 2. Poll the start task until READY or ERROR (hooks/query/use-task-polling.ts).
    const polled = await pollUntil(
      () => web("GET", api(`/app-conversations/start-tasks?ids=${created.body.id}`)),
      (a: Answer) => ["READY", "ERROR"].includes(a.body?.[0]?.status),
      "start task did not finish",
    );
    const task = polled.body[0];
    expect(task).toMatchObject({ status: "READY", detail: null });
    const id = task.app_conversation_id as string;

    // 3. Read the conversation and its sandbox (batchGetAppConversations, batchGetSandboxes).
    const conversation = await readConversation(web, id);
    expect(conversation).toMatchObject({
      id,
      sandbox_status: "RUNNING",
      sub_conversation_ids: [],
      pr_number: [],
      trigger: "gui",
    });
    const sandboxId = conversation.sandbox_id as string;
    const sandboxes = await web("GET", api(`/sandboxes?id=${sandboxId}`));
    expect(sandboxes.body[0]).toMatchObject({ id: sandboxId, status: "RUNNING" });

    // 4. History (searchEventsV1, limit=100 only): the initial message ran the agent.
    await waitForStoredReply(web, id, "hello-from-web");

    // 5. Live: the socket at the base of conversation_url, query-parameter auth, resend_all.
    const agentBase =
      (conversation.conversation_url as string).split("/api/conversations")[0] ?? "";
    const socket = await openEventSocket(agentBase, id, conversation.session_api_key, "query");
    try {
      const counted = await fetch(`${agentBase}/api/conversations/${id}/events/count`, {
        headers: { "X-Session-API-Key": conversation.session_api_key },
      });
      expect(Number(await counted.text())).toBeGreaterThan(0);
      // 6. Send over the socket ({role, content}, no run: the agent server runs it).
      socket.socket.send(JSON.stringify({ role: "user", content: text("echo via-web-socket") }));
      await socket.waitFor((f) => isAgentReply(f, "via-web-socket"), "socket reply");
      // (chain) The same conversation through send-message.
      await sendThroughProxy(web, id, "echo via-web-proxy");
      await socket.waitFor((f) => isAgentReply(f, "via-web-proxy"), "proxied reply");
    } finally {
      socket.close();
    }
    // (chain) Everything is in the stored events, through the search path.
    const stored = await waitForStoredReply(web, id, "via-web-proxy");
    expect(stored.some((e) => isAgentReply(e, "via-web-socket"))).toBe(true);

    // 8. Stop (pause) and start (resume) with `{}` bodies; the conversation shows each state.
    expect((await web("POST", api(`/sandboxes/${sandboxId}/pause`), { json: {} })).status).toBe(
      200,
    );
    expect(await readConversation(web, id)).toMatchObject({
      sandbox_status: "PAUSED",
      conversation_url: null,
    });
    const whilePaused = await web("GET", api(`/conversation/${id}/events/search?limit=100`));
    // Everything stored before the pause is still readable (the agent may have stored a last
    // state event after the reply was read, so this is at least, not exactly, that many).
    expect(whilePaused.body.items.length).toBeGreaterThanOrEqual(stored.length);
    expect(whilePaused.body.items.some((e: Frame) => isAgentReply(e, "via-web-proxy"))).toBe(true);
    expect((await web("POST", api(`/sandboxes/${sandboxId}/resume`), { json: {} })).status).toBe(
      200,
    );
    await pollUntil(
      () => readConversation(web, id),
      (c) => c.sandbox_status === "RUNNING" && c.conversation_url !== null,
      "conversation did not come back",
    );

    // 9. Rename, then delete: the sandbox it started goes with it.
    const renamed = await web("PATCH", api(`/app-conversations/${id}`), {
      json: { title: "renamed in the web app" },
    });
    expect(renamed.body).toMatchObject({ id, title: "renamed in the web app" });
    expect(await web("DELETE", api(`/app-conversations/${id}`))).toEqual({
      status: 200,
      body: { success: true },
    });
    expect(await readConversation(web, id)).toBeNull();
    expect((await web("GET", api(`/sandboxes?id=${sandboxId}`))).body).toEqual([null]);
  });
});

describe("CLI (OpenHands-CLI: openhands cloud, ACP remote agent)", () => {
  it("checks the key, starts a task, follows it, resumes by conversation id, and the chain completes", async () => {
    // Authorization and Content-Type: application/json on every request, GETs included.
    const cli = client({ authorization: `Bearer ${key}` }, true);

    // Token check (auth/api_client.py is_token_valid): 200 continues; 401 starts the login,
    // recognised by "HTTP 401" in `HTTP <status>: <detail>`.
    expect((await cli("GET", api("/users/me"))).status).toBe(200);
    const stranger = client({ authorization: "Bearer ssk_not_a_key" }, true);
    const refused = await stranger("GET", api("/users/me"));
    expect(refused.status).toBe(401);
    expect(typeof refused.body.detail).toBe("string");

    // cloud/conversation.py: initial_message without role or run, repository and branch.
    const created = await cli("POST", api("/app-conversations"), {
      json: {
        initial_message: { content: text("echo hello-from-cli") },
        selected_repository: "octo/repo",
        selected_branch: "main",
      },
    });
    expect(created.status).toBeLessThan(300);
    let conversationId: string | null = created.body.app_conversation_id;
    // Up to 15 polls of the start task when app_conversation_id is not set yet.
    for (let attempt = 0; conversationId === null && attempt < 15; attempt++) {
      const [state] = (
        await cli("GET", api(`/app-conversations/start-tasks?ids=${created.body.id}`))
      ).body;
      if (state?.status === "ERROR") throw new Error(`start failed: ${state.detail}`);
      conversationId = state?.app_conversation_id ?? null;
      if (conversationId === null) await sleep(200);
    }
    if (!conversationId) throw new Error("no conversation id");
    expect(conversationId).toBe(created.body.id);

    // ACP session resume (acp_impl/agent/remote_agent.py): ?ids=<dashed UUID> → sandbox_id,
    // then the SDK workspace resumes that sandbox and waits for it.
    const conversation = await readConversation(cli, conversationId);
    expect(conversation).toMatchObject({
      selected_repository: "octo/repo",
      selected_branch: "main",
    });
    const sandboxId = conversation.sandbox_id as string;
    await waitForStoredReply(cli, conversationId, "hello-from-cli");

    // (chain) Send through conversation_url (the agent server's REST) and through send-message.
    const direct = await fetch(`${conversation.conversation_url}/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "X-Session-API-Key": conversation.session_api_key,
      },
      body: JSON.stringify({ role: "user", content: text("echo via-cli-direct"), run: true }),
    });
    expect(direct.status).toBe(200);
    await waitForStoredReply(cli, conversationId, "via-cli-direct");
    await sendThroughProxy(cli, conversationId, "echo via-cli-proxy");
    await waitForStoredReply(cli, conversationId, "via-cli-proxy");

    // (chain) Pause, then the ACP resume path: POST …/resume, GET /sandboxes?id= until RUNNING.
    expect((await cli("POST", api(`/sandboxes/${sandboxId}/pause`))).status).toBe(200);
    const paused = await readConversation(cli, conversationId);
    expect(paused.sandbox_status).toBe("PAUSED");
    const resume = client({ authorization: `Bearer ${key}` }, false);
    expect((await resume("POST", api(`/sandboxes/${sandboxId}/resume`))).status).toBe(200);
    await waitUntilRunning(cli, sandboxId);
    await sendThroughProxy(cli, conversationId, "echo after-cli-resume");
    await waitForStoredReply(cli, conversationId, "after-cli-resume");

    // (chain) Delete.
    expect((await cli("DELETE", api(`/app-conversations/${conversationId}`))).body).toEqual({
      success: true,
    });
    expect(await readConversation(cli, conversationId)).toBeNull();
  });
});

describe("TypeScript client (OpenHands/typescript-client)", () => {
  it("CloudClient: settings, start task, conversation, agent-server messages, search, pause, resume, delete", async () => {
    // fetchAndParse: Authorization and Content-Type: application/json on every request.
    const cloud = client({ authorization: `Bearer ${key}` }, true);
    expect((await cloud("GET", api("/settings"))).status).toBe(200);

    // createConversation → getConversationStartTask (data?.[0] ?? null) → getConversations.
    const created = await cloud("POST", api("/app-conversations"), {
      json: {
        title: "from the TS client",
        initial_message: { content: text("echo hello-from-ts") },
      },
    });
    expect(created.status).toBeLessThan(300);
    const started = await pollUntil(
      async () =>
        (await cloud("GET", api(`/app-conversations/start-tasks?ids=${created.body.id}`)))
          .body?.[0] ?? null,
      (task) => task?.status === "READY" || task?.status === "ERROR",
      "start task did not finish",
    );
    expect(started.status).toBe("READY");
    const id = started.app_conversation_id as string;
    const conversation = await readConversation(cloud, id);
    // (chain) The initial message ran the agent; its reply is stored.
    await waitForStoredReply(cloud, id, "hello-from-ts");
    const url = conversation.conversation_url as string;
    const session = { "X-Session-API-Key": conversation.session_api_key as string };

    // ConversationClient / RemoteConversation: the socket with first-frame auth, a message
    // with run: false, then POST …/run.
    const agentBase = url.split("/api/conversations")[0] ?? "";
    const socket = await openEventSocket(
      agentBase,
      id,
      conversation.session_api_key,
      "first-frame",
    );
    try {
      const posted = await fetch(`${url}/events`, {
        method: "POST",
        headers: { ...session, "content-type": "application/json" },
        body: JSON.stringify({ role: "user", content: text("echo via-ts-direct"), run: false }),
      });
      expect(posted.status).toBe(200);
      const run = await fetch(`${url}/run`, { method: "POST", headers: session });
      expect([200, 201, 204, 409]).toContain(run.status);
      await socket.waitFor((f) => isAgentReply(f, "via-ts-direct"), "direct reply");
      // (chain) send-message.
      await sendThroughProxy(cloud, id, "echo via-ts-proxy");
      await socket.waitFor((f) => isAgentReply(f, "via-ts-proxy"), "proxied reply");
    } finally {
      socket.close();
    }
    // (chain) The stored events through the search path.
    await waitForStoredReply(cloud, id, "via-ts-proxy");

    // searchConversations: newest activity first.
    const listed = await cloud(
      "GET",
      api("/app-conversations/search?limit=20&sort_order=UPDATED_AT_DESC"),
    );
    expect(listed.body.items[0].id).toBe(id);

    // pauseSandbox / resumeSandbox with `{}`, then deleteConversation.
    const sandboxId = conversation.sandbox_id as string;
    expect((await cloud("POST", api(`/sandboxes/${sandboxId}/pause`), { json: {} })).status).toBe(
      200,
    );
    expect((await readConversation(cloud, id)).sandbox_status).toBe("PAUSED");
    expect((await cloud("POST", api(`/sandboxes/${sandboxId}/resume`), { json: {} })).status).toBe(
      200,
    );
    expect((await readConversation(cloud, id)).sandbox_status).toBe("RUNNING");
    expect((await cloud("DELETE", api(`/app-conversations/${id}`))).body).toEqual({
      success: true,
    });
    expect(await readConversation(cloud, id)).toBeNull();
  });

  it("CloudWorkspace: sandbox with an empty JSON body, wait, commands on the agent server, cleanup", async () => {
    const workspace = client({ authorization: `Bearer ${key}` }, true);
    // _createSandbox: POST /api/v1/sandboxes, empty body with a JSON content type.
    const created = await workspace("POST", api("/sandboxes"), { raw: "" });
    expect(created.status).toBeLessThan(300);
    const sandboxId = created.body.id as string;
    const { sandbox, agentServerUrl } = await waitUntilRunning(workspace, sandboxId);
    const session = { "X-Session-API-Key": sandbox.session_api_key as string };

    // execute_command: start_bash_command, then bash_events/search for that command's output.
    const started = await fetch(`${agentServerUrl}/api/bash/start_bash_command`, {
      method: "POST",
      headers: { ...session, "content-type": "application/json" },
      body: JSON.stringify({ command: "echo from-ts-workspace", timeout: 30 }),
    });
    expect(started.status).toBe(200);
    const command = (await started.json()) as { id: string };
    const output = await pollUntil(
      async () => {
        const res = await fetch(
          `${agentServerUrl}/api/bash/bash_events/search?command_id__eq=${command.id}&sort_order=TIMESTAMP&limit=100`,
          { headers: session },
        );
        return (await res.json()) as { items: Frame[] };
      },
      (page) => page.items.some((e) => e.kind === "BashOutput" && e.exit_code !== null),
      "command did not finish",
    );
    const stdout = output.items.map((e) => e.stdout ?? "").join("");
    expect(stdout).toContain("from-ts-workspace");

    // cleanup: DELETE /api/v1/sandboxes?sandbox_id=<id> (no id in the path), empty JSON body.
    const deleted = await workspace("DELETE", api(`/sandboxes?sandbox_id=${sandboxId}`), {
      raw: "",
    });
    expect(deleted.status).toBeLessThan(300);
    expect((await workspace("GET", api(`/sandboxes?id=${sandboxId}`))).body).toEqual([null]);
  });
});

describe("SDK (OpenHandsCloudWorkspace + RemoteConversation)", () => {
  it("provisions a sandbox, runs an Agent conversation on its agent server, resumes it and cleans up", async () => {
    // httpx with Authorization only; a bodiless POST has no content type.
    const sdk = client({ authorization: `Bearer ${key}` }, false);

    // 1. _create_new_sandbox: POST /api/v1/sandboxes, no body.
    const created = await sdk("POST", api("/sandboxes"));
    expect(created.status).toBeLessThan(300);
    const sandboxId = created.body.id as string;
    // 2. _wait_until_sandbox_ready: GET /sandboxes?id=, then the agent server's /health.
    const { sandbox, agentServerUrl } = await waitUntilRunning(sdk, sandboxId);
    const session = {
      "X-Session-API-Key": sandbox.session_api_key as string,
      "content-type": "application/json",
    };

    // 3. RemoteConversation: POST /api/conversations with the SDK's Agent (an LLM agent).
    const conversationId = crypto.randomUUID();
    const isolated = t.runtime.isolation !== "none";
    const opened = await fetch(`${agentServerUrl}/api/conversations`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({
        agent: {
          kind: "Agent",
          llm: { model: "fake-model", base_url: llm.baseUrl, api_key: "sk-fake" },
          tools: [{ name: "TerminalTool" }],
        },
        // The cloud workspace's default; relative where sandboxes are not isolated.
        workspace: {
          kind: "LocalWorkspace",
          working_dir: isolated ? "/workspace/project" : "project",
        },
        conversation_id: conversationId,
        tags: {},
        max_iterations: 50,
        stuck_detection: true,
      }),
    });
    expect(opened.status).toBeLessThan(300);
    const history = await fetch(
      `${agentServerUrl}/api/conversations/${conversationId}/events/search?limit=100`,
      { headers: session },
    );
    expect(history.status).toBe(200);
    const socket = await openEventSocket(
      agentServerUrl,
      conversationId,
      sandbox.session_api_key,
      "first-frame",
    );
    try {
      // 4. send_message (run: false), then run(); poll execution_status.
      const sent = await fetch(`${agentServerUrl}/api/conversations/${conversationId}/events`, {
        method: "POST",
        headers: session,
        body: JSON.stringify({ role: "user", content: text("finish the task"), run: false }),
      });
      expect(sent.status).toBe(200);
      const run = await fetch(`${agentServerUrl}/api/conversations/${conversationId}/run`, {
        method: "POST",
        headers: session,
      });
      expect([200, 201, 204, 409]).toContain(run.status);
      await pollUntil(
        async () => {
          const res = await fetch(`${agentServerUrl}/api/conversations/${conversationId}`, {
            headers: session,
          });
          return ((await res.json()) as { execution_status: string }).execution_status;
        },
        (status) => status === "finished",
        "the agent did not finish",
      );
      expect(llm.calls()).toBeGreaterThan(0);
      await socket.waitFor((f) => f.kind === "MessageEvent" && f.source === "user", "message");
    } finally {
      socket.close();
    }

    // (chain) The conversation the SDK made on the agent server, through our API.
    const registered = await readConversation(sdk, conversationId);
    expect(registered).toMatchObject({ id: conversationId, sandbox_id: sandboxId });
    await sendThroughProxy(sdk, conversationId, "finish again");
    const events = await pollUntil(
      () => sdk("GET", api(`/conversation/${conversationId}/events/search?kind__eq=MessageEvent`)),
      (a: Answer) => a.body.items.filter((e: Frame) => e.source === "user").length === 2,
      "both user messages were not stored",
    );
    expect(events.body.items.every((e: Frame) => e.kind === "MessageEvent")).toBe(true);

    // 6. The SDK cannot pause (pause() raises); (chain) pause through our API, then the SDK's
    // resume: POST …/resume without a body, and the same wait.
    expect((await sdk("POST", api(`/sandboxes/${sandboxId}/pause`))).status).toBe(200);
    expect((await sdk("POST", api(`/sandboxes/${sandboxId}/resume`))).status).toBe(200);
    await waitUntilRunning(sdk, sandboxId);

    // 7. cleanup(): DELETE /sandboxes/{id}?sandbox_id={id}.
    const deleted = await sdk("DELETE", api(`/sandboxes/${sandboxId}?sandbox_id=${sandboxId}`));
    expect(deleted.status).toBe(200);
    expect((await sdk("GET", api(`/sandboxes?id=${sandboxId}`))).body).toEqual([null]);
    expect(await readConversation(sdk, conversationId)).toMatchObject({
      sandbox_status: "MISSING",
      archived: true,
    });
    // (chain) Its events stay readable through the search path.
    const archived = await sdk("GET", api(`/conversation/${conversationId}/events/search`));
    expect(archived.body.items.length).toBeGreaterThanOrEqual(events.body.items.length);
  });
});
