import { expect, inject, it } from "vitest";
import { describeClientError } from "./errors";
import { WaitTimeoutError } from "./poll";
import { createSandboxClient } from "./trpc-client";
import { waitForConversationSettled, waitForSandboxStatus } from "./wait-for";

const { url, apiKey } = inject("server");
const client = createSandboxClient({ url, apiKey });

it("waits for a sandbox to become RUNNING, then PAUSED", async () => {
  const started = await client.sandboxes.start.mutate({});
  expect(started.status).toBe("STARTING");
  const running = await waitForSandboxStatus(client, started.id, "RUNNING", { timeoutMs: 60_000 });
  expect(running.status).toBe("RUNNING");
  expect(running.agent_server_url).toMatch(/^http:\/\/(127\.0\.0\.1:\d+|198\.19\.\d+\.\d+:8000)$/);

  await client.sandboxes.pause.mutate({ id: started.id });
  const paused = await waitForSandboxStatus(client, started.id, ["PAUSED", "ERROR"]);
  expect(paused.status).toBe("PAUSED");

  // A status the sandbox never reaches by itself: the wait gives up with a WaitTimeoutError.
  const timedOut = await waitForSandboxStatus(client, started.id, "RUNNING", {
    timeoutMs: 300,
  }).catch((e: unknown) => e);
  expect(timedOut).toBeInstanceOf(WaitTimeoutError);
  expect((timedOut as Error).message).toContain("is PAUSED, not RUNNING");

  await client.sandboxes.delete.mutate({ id: started.id });
  const gone = await waitForSandboxStatus(client, started.id, "RUNNING").catch((e: unknown) => e);
  expect(describeClientError(gone)).toMatchObject({ code: "SANDBOX_NOT_FOUND", status: 404 });
});

it("waits until the agent has answered a message", async () => {
  const conversation = await client.conversations.create.mutate({
    initial_message: { content: [{ type: "text", text: "echo settled" }], run: true },
  });
  const settled = await waitForConversationSettled(client, conversation.id);
  expect(settled.execution_status).not.toBe("running");
  expect(settled.execution_status).not.toBeNull();
  // The agent answered: its reply is stored (the control plane follows events asynchronously).
  await expect
    .poll(async () => {
      const page = await client.events.search.query({ id: conversation.id, kind: "MessageEvent" });
      return page.items.filter((event) => event.source === "agent").length;
    })
    .toBeGreaterThan(0);
  await client.sandboxes.delete.mutate({ id: conversation.sandbox_id });
});
