import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ProcessRuntime } from "@sandbox-server/runtime";
import { type RunningServer, startServer } from "@sandbox-server/server";
import { TRPCClientError } from "@trpc/client";
import pino from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSandboxClient } from "./index";

const ADMIN_KEY = "ssk_client_test_admin_key_01234";
let server: RunningServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-client-test-"));
  const agentServerEntry = fileURLToPath(
    new URL("../../../apps/agent-server/dist/agent-server.js", import.meta.url),
  );
  server = await startServer({
    dataDir,
    runtime: new ProcessRuntime({ rootDir: path.join(dataDir, "sandboxes"), agentServerEntry }),
    log: pino({ level: "silent" }),
    adminApiKey: ADMIN_KEY,
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("drives a conversation through the typed client", async () => {
  const client = createSandboxClient({ url: server.url, apiKey: ADMIN_KEY });
  const conversation = await client.conversations.create.mutate({ title: "typed" });
  expect(conversation.sandbox_status).toBe("RUNNING");
  const sent = await client.conversations.sendMessage.mutate({
    conversation_id: conversation.id,
    content: [{ type: "text", text: "echo typed" }],
    run: true,
  });
  expect(sent).toMatchObject({ success: true, sandbox_status: "RUNNING" });
  const sandboxes = await client.sandboxes.search.query({});
  expect(sandboxes.items.map((s) => s.id)).toContain(conversation.sandbox_id);
  await client.sandboxes.delete.mutate({ id: conversation.sandbox_id });
});

it("surfaces domain error codes and statuses", async () => {
  const client = createSandboxClient({ url: server.url, apiKey: ADMIN_KEY });
  const error = await client.sandboxes.get.query({ id: "sb_missing" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TRPCClientError);
  const data = (error as TRPCClientError<never>).data as unknown as {
    code: string;
    httpStatus: number;
  };
  expect(data).toMatchObject({ code: "SANDBOX_NOT_FOUND", httpStatus: 404 });
  const anonymous = createSandboxClient({ url: server.url, apiKey: "ssk_wrong" });
  await expect(anonymous.sandboxes.search.query({})).rejects.toThrow(/API key/);
});
