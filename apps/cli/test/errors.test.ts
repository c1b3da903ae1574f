import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, inject, it } from "vitest";
import { freePort, runCli } from "./cli";

const { url, dataDir } = inject("server");

function expectOneLineError(result: { code: number; stdout: string; stderr: string }) {
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe("");
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^sandbox-server: error: /);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

it("reaches the server with the admin key file when the environment names no key", async () => {
  // The probe that must succeed first: same server, key from $DATA_DIR/admin-api-key.
  const ok = await runCli(["sandboxes", "list"], { SANDBOX_SERVER_URL: url, DATA_DIR: dataDir });
  expect(ok.code, ok.stderr).toBe(0);
  // ... and from ./.data/admin-api-key where the command runs when DATA_DIR is not set either.
  const cwd = mkdtempSync(path.join(tmpdir(), "sandbox-cli-cwd-"));
  try {
    mkdirSync(path.join(cwd, ".data"));
    copyFileSync(path.join(dataDir, "admin-api-key"), path.join(cwd, ".data", "admin-api-key"));
    const fromCwd = await runCli(["sandboxes", "list", "--json"], { SANDBOX_SERVER_URL: url }, cwd);
    expect(fromCwd.code, fromCwd.stderr).toBe(0);
    expect(JSON.parse(fromCwd.stdout)).toBeInstanceOf(Array);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

it("answers a wrong API key with one line and a non-zero exit", async () => {
  const result = await runCli(["sandboxes", "list"], {
    SANDBOX_SERVER_URL: url,
    SANDBOX_API_KEY: "ssk_not_a_real_key_000000000000000",
  });
  expectOneLineError(result);
  expect(result.stderr).toMatch(/\(UNAUTHORIZED, HTTP 401\)\n$/);
});

it("explains a missing key, an unreachable server and bad input in one line each", async () => {
  const empty = mkdtempSync(path.join(tmpdir(), "sandbox-cli-nokey-"));
  try {
    const noKey = await runCli(["sandboxes", "list"], { SANDBOX_SERVER_URL: url, DATA_DIR: empty });
    expectOneLineError(noKey);
    expect(noKey.stderr).toContain("no API key: set SANDBOX_API_KEY");
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }

  const port = await freePort();
  const offline = await runCli(["sandboxes", "list"], {
    SANDBOX_SERVER_URL: `http://127.0.0.1:${port}`,
    SANDBOX_API_KEY: "ssk_any",
  });
  expectOneLineError(offline);
  expect(offline.stderr).toContain(
    `cannot reach the server (ECONNREFUSED) at http://127.0.0.1:${port}`,
  );

  const invalid = await runCli(["conversations", "send", "not-a-uuid", "hello"], {
    SANDBOX_SERVER_URL: url,
    DATA_DIR: dataDir,
  });
  expectOneLineError(invalid);
  expect(invalid.stderr).toMatch(/\[conversation_id: [^\]]+\] \(VALIDATION_FAILED, HTTP 422\)\n$/);
});
