import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assertSafeSandboxId,
  createSandboxDirs,
  readSandboxSecrets,
  readSandboxState,
  resolveSandboxPaths,
  type SandboxPaths,
  type SandboxState,
  writeLaunchRecord,
  writeSandboxSecrets,
  writeSandboxState,
} from "./sandbox-files";

let rootDir: string;
let paths: SandboxPaths;

beforeEach(async () => {
  rootDir = await mkdtemp(path.join(tmpdir(), "sandbox-files-"));
  paths = resolveSandboxPaths(rootDir, "sb_1");
  await createSandboxDirs(paths);
});

afterEach(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

const state: SandboxState = {
  sandboxId: "sb_1",
  pid: 1234,
  port: 41234,
  argv: ["/usr/bin/node", "/app/agent-server.js", "--port", "0"],
  command: null,
  labels: { owner: "u1" },
  logOffset: 10,
  startedAt: "2025-01-01T00:00:00.000Z",
};

describe("sandbox files", () => {
  it("lays out the sandbox directory", async () => {
    expect(paths.dir).toBe(path.join(rootDir, "sb_1"));
    expect((await stat(paths.workspaceDir)).isDirectory()).toBe(true);
    expect((await stat(paths.dataDir)).isDirectory()).toBe(true);
  });

  it("reads back the state it wrote, and nothing secret is in it", async () => {
    await writeSandboxState(paths, state);
    expect(await readSandboxState(paths)).toEqual(state);
  });

  it("keeps the secrets in a file only the owner can read", async () => {
    await writeSandboxSecrets(paths, { sessionApiKey: "key-1", env: { A: "b" } });
    expect(await readSandboxSecrets(paths)).toEqual({ sessionApiKey: "key-1", env: { A: "b" } });
    expect((await stat(paths.secretsFile)).mode & 0o777).toBe(0o600);
  });

  it("writes a launch record as both files, the secrets for the owner only, and nothing beside them", async () => {
    const secrets = { sessionApiKey: "key-2", env: { B: "c" } };
    await writeLaunchRecord(paths, secrets, state);
    expect(await readSandboxState(paths)).toEqual(state);
    expect(await readSandboxSecrets(paths)).toEqual(secrets);
    expect((await stat(paths.secretsFile)).mode & 0o777).toBe(0o600);
    expect((await readdir(paths.dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("treats a missing or malformed state file as no state", async () => {
    expect(await readSandboxState(paths)).toBeNull();
    await writeFile(paths.stateFile, JSON.stringify({ ...state, pid: "1234" }));
    expect(await readSandboxState(paths)).toBeNull();
    await writeFile(paths.stateFile, "{");
    expect(await readSandboxState(paths)).toBeNull();
  });

  it("refuses ids that could leave the root directory", () => {
    expect(() => assertSafeSandboxId("../etc")).toThrow(/invalid sandbox id/);
    expect(() => assertSafeSandboxId("")).toThrow(/invalid sandbox id/);
    expect(() => assertSafeSandboxId("sb_AZaz09-")).not.toThrow();
  });
});
