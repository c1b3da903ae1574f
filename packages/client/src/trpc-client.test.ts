import { createServer } from "node:net";
import { TRPCClientError } from "@trpc/client";
import { expect, inject, it } from "vitest";
import { describeClientError } from "./errors";
import { createSandboxClient } from "./trpc-client";

const { url, apiKey } = inject("server");

it("drives a conversation through the typed client", async () => {
  const client = createSandboxClient({ url: `${url}/`, apiKey });
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
  const archived = await client.conversations.get.query({ id: conversation.id });
  expect(archived.archived).toBe(true);
});

it("carries the server's error code and HTTP status", async () => {
  const client = createSandboxClient({ url, apiKey });
  const error = await client.sandboxes.get.query({ id: "sb_missing" }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TRPCClientError);
  expect((error as TRPCClientError<never>).data).toMatchObject({
    code: "SANDBOX_NOT_FOUND",
    httpStatus: 404,
  });
  expect(describeClientError(error)).toMatchObject({ code: "SANDBOX_NOT_FOUND", status: 404 });
});

it("describes a wrong key, bad input and an unreachable server in one shape", async () => {
  const anonymous = createSandboxClient({ url, apiKey: "ssk_wrong" });
  const unauthorized = await anonymous.sandboxes.search.query({}).catch((e: unknown) => e);
  expect(describeClientError(unauthorized)).toMatchObject({ status: 401 });

  const client = createSandboxClient({ url, apiKey });
  const invalid = await client.conversations.sendMessage
    .mutate({ conversation_id: "not-a-uuid", content: [{ type: "text", text: "x" }] })
    .catch((e: unknown) => e);
  const described = describeClientError(invalid);
  expect(described.status).toBe(422);
  expect(described.issues?.length).toBeGreaterThan(0);

  // A port that was free a moment ago: nothing answers there.
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const offline = createSandboxClient({ url: `http://127.0.0.1:${port}`, apiKey });
  const unreachable = await offline.sandboxes.search.query({}).catch((e: unknown) => e);
  expect(describeClientError(unreachable)).toEqual({
    code: "NETWORK_ERROR",
    status: null,
    message: "cannot reach the server (ECONNREFUSED)",
  });
});

it("sets a sandbox's egress policy at create and names a malformed entry", async () => {
  const client = createSandboxClient({ url, apiKey });
  const sandbox = await client.sandboxes.start.mutate({
    network: { allow_internet: false, allow_out: ["PyPI.org:443"] },
  });
  expect(sandbox.network).toEqual({
    allow_internet: false,
    allow_out: ["pypi.org:443"],
    deny_out: [],
  });
  await client.sandboxes.delete.mutate({ id: sandbox.id });
  const invalid = await client.sandboxes.start
    .mutate({ network: { deny_out: ["pypi.org:http"] } })
    .catch((e: unknown) => e);
  const described = describeClientError(invalid);
  expect(described.status).toBe(422);
  expect(described.issues?.[0]).toMatchObject({ path: ["network", "deny_out", 0] });
  expect(described.issues?.[0]?.message).toContain('"pypi.org:http"');
});

it("asks for a signed port URL and sees declared ports in exposed_urls", async () => {
  const client = createSandboxClient({ url, apiKey });
  const sandbox = await client.sandboxes.start.mutate({
    ports: [{ port: 8080, name: "VSCODE" }],
    auto_resume: true,
  });
  expect(sandbox.auto_resume).toBe(true);
  const port = await client.sandboxes.getPort.query({
    id: sandbox.id,
    port: 3000,
    expires_in_s: 600,
  });
  expect(port.port).toBe(3000);
  expect(port.url).toMatch(/^http:\/\/p3000-[0-9a-z]+-[0-9a-z]+\.localhost:\d+\/$/);
  expect(Date.parse(port.expires_at) - Date.now()).toBeLessThanOrEqual(600_000);
  await client.sandboxes.delete.mutate({ id: sandbox.id });
});
