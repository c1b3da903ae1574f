import { execFileSync } from "node:child_process";
import { containerNameFor, DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents, waitForExecution } from "./agent";
import { startTestServer, type TestServer } from "./harness";

// Only the docker vitest project runs this file (see vitest.config.ts).
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ runtime: "docker" });
});
afterAll(async () => {
  await t.close();
});

const run = (text: string) => ({ role: "user", content: [{ type: "text", text }], run: true });

async function agentReply(conv: { id: string }): Promise<string> {
  const read = (await t.api("GET", `/api/v1/app-conversations/${conv.id}`)).body;
  await waitForExecution(read.conversation_url, read.session_api_key);
  const events = await readEvents(read.conversation_url, read.session_api_key);
  const replies = events.filter((e) => e.kind === "MessageEvent" && e.source === "agent");
  return JSON.stringify(replies.at(-1)?.llm_message.content);
}

describe("docker sandboxes", () => {
  it("runs the shell agent's commands inside the container, not on the host", async () => {
    const conv = (await t.api("POST", "/api/v1/app-conversations", { body: {} })).body;
    const sent = await t.api("POST", `/api/v1/app-conversations/${conv.id}/send-message`, {
      body: run("uname -a; id; cat /etc/os-release; hostname"),
    });
    expect(sent.status).toBe(200);
    const reply = await agentReply(conv);
    const container = JSON.parse(
      execFileSync("docker", ["inspect", containerNameFor(conv.sandbox_id)]).toString(),
    )[0];
    expect(reply).toContain("uid=10001(agent)");
    expect(reply).toContain("bookworm");
    // The container's hostname is its short id; the host's is something else.
    expect(reply).toContain(container.Config.Hostname);
    expect(reply).not.toContain(execFileSync("hostname").toString().trim());
  });

  it("marks a container removed from outside as ERROR", async () => {
    const sandbox = (await t.api("POST", "/api/v1/sandboxes", { body: {} })).body;
    await t.waitForStatus(sandbox.id, "RUNNING");
    execFileSync("docker", ["rm", "-f", containerNameFor(sandbox.id)], { stdio: "ignore" });
    const errored = await t.waitForStatus(sandbox.id, "ERROR", undefined, 15_000);
    expect(errored.body.status_detail).toMatch(/vanish|missing|removed|no such/i);
    expect((await t.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`)).status).toBe(200);
  });

  it("reports a sandbox that hits its memory limit as ERROR with OOM in status_detail", async () => {
    await t.server.core.deps.repos.specs.upsert({
      id: "small",
      name: "small",
      description: "128 MiB",
      runtime: "docker",
      image: DEFAULT_SANDBOX_IMAGE,
      command: null,
      workingDir: null,
      initialEnv: {},
      cpu: 1,
      memoryMb: 128,
      pids: 256,
      network: null,
      createdAt: Date.now(),
    });
    const conv = await t.api("POST", "/api/v1/app-conversations", {
      body: { sandbox_spec_id: "small" },
    });
    expect(conv.status).toBe(201);
    // Make the agent server the OOM killer's choice (raising one's own score needs no privilege),
    // then allocate past the limit.
    await t.api("POST", `/api/v1/app-conversations/${conv.body.id}/send-message`, {
      body: run(
        `echo 1000 > /proc/$PPID/oom_score_adj; node -e "const a=[];for(;;)a.push(Buffer.alloc(1<<20,1))"`,
      ),
    });
    const errored = await t.waitForStatus(conv.body.sandbox_id, "ERROR", undefined, 30_000);
    expect(errored.body.status_detail).toMatch(/OOM/);
  });
});
