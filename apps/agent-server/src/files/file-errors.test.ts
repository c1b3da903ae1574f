import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";
import { createLogger } from "../logger";

let server: TestServer;
const logLines: string[] = [];
beforeAll(async () => {
  const logger = createLogger("debug", {}, (line) => logLines.push(line));
  server = await startTestServer({ logger });
});
afterAll(() => server.dispose());

const auth = { "x-session-api-key": SESSION_KEY };

async function upload(target: string) {
  const form = new FormData();
  form.append("file", new Blob([new TextEncoder().encode("data")]), "upload.bin");
  const route = `/api/file/upload?path=${encodeURIComponent(target)}`;
  const response = await fetch(`${server.baseUrl}${route}`, {
    method: "POST",
    body: form,
    headers: auth,
  });
  return { status: response.status, body: await response.json() };
}

async function download(target: string) {
  const route = `/api/file/download?path=${encodeURIComponent(target)}`;
  const response = await fetch(`${server.baseUrl}${route}`, { headers: auth });
  const text = await response.text();
  return { status: response.status, body: response.ok ? text : JSON.parse(text) };
}

const detail = { detail: expect.any(String) };

describe("uploads that cannot be written answer 4xx JSON, and the server stays up", () => {
  it("writes where it can (the probe for the cases below)", async () => {
    const target = path.join(server.workspaceDir, "fine/ok.txt");
    expect(await upload(target)).toEqual({ status: 200, body: { success: true } });
    expect(fs.readFileSync(target, "utf8")).toBe("data");
  });

  it.each([
    ["a file system that refuses new entries", "/proc/self/new-file", 400],
    ["a directory that cannot be created there", "/proc/self/new-dir/file.txt", 400],
    ["a NUL in the path", "/tmp/a\0b", 400],
  ])("%s", async (_, target, status) => {
    expect(await upload(target)).toEqual({ status, body: detail });
  });

  it("a directory as the target", async () => {
    expect(await upload(server.workspaceDir)).toEqual({ status: 400, body: detail });
    expect(await upload("/")).toEqual({ status: 400, body: detail });
  });

  it("a parent that is a file", async () => {
    const file = path.join(server.workspaceDir, "plain.txt");
    fs.writeFileSync(file, "x");
    expect(await upload(path.join(file, "child.txt"))).toEqual({ status: 400, body: detail });
    expect(await upload(path.join(file, "deeper/child.txt"))).toEqual({
      status: 400,
      body: detail,
    });
    expect(fs.readFileSync(file, "utf8")).toBe("x");
  });

  it("left the server healthy and logged no error", async () => {
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    expect(logLines.filter((line) => JSON.parse(line).level === "error")).toEqual([]);
  });
});

describe("downloads answer 4xx JSON, never 500", () => {
  it("reads a file (the probe for the cases below)", async () => {
    const file = path.join(server.workspaceDir, "read-me.txt");
    fs.writeFileSync(file, "content");
    expect(await download(file)).toEqual({ status: 200, body: "content" });
  });

  it.each([
    ["a NUL in the path", "/tmp/a\0b", 400],
    ["a directory", "/tmp", 400],
    ["a device", "/dev/null", 400],
    ["a missing file", "/tmp/does-not-exist-at-all", 404],
    ["a parent that is a file", "/etc/hostname/child", 404],
  ])("%s", async (_, target, status) => {
    expect(await download(target)).toEqual({ status, body: detail });
  });
});

describe("commands and conversations with unusable directories", () => {
  it("answers 4xx for a working_dir or cwd that cannot be used", async () => {
    const create = (workingDir: string) =>
      server.api("POST", "/api/conversations", {
        agent: { kind: "shell" },
        workspace: { working_dir: workingDir },
      });
    expect((await create(path.join(server.workspaceDir, "wd"))).status).toBe(201);
    expect((await create("/proc/self/new-dir")).status).toBe(400);
    expect((await create("/tmp/a\0b")).status).toBe(400);
    const run = (cwd: string) =>
      server.api("POST", "/api/bash/execute_bash_command", { command: "true", cwd });
    expect((await run(server.workspaceDir)).status).toBe(200);
    expect((await run("/tmp/a\0b")).status).toBe(400);
    expect((await run("/etc/hostname/x")).status).toBe(400);
  });
});
