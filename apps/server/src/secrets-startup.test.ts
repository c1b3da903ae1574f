import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createSecretBox, createSqliteStore } from "@sandbox-server/db";
import { afterAll, describe, expect, it } from "vitest";

// The built control plane (turbo builds it before tests), as `npm start` runs it.
const bundle = fileURLToPath(new URL("../dist/server.js", import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), "sandbox-server-secrets-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(dataDir: string, extra: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [bundle], {
    env: {
      PATH: process.env.PATH,
      SANDBOX_RUNTIME: "process",
      PORT: "0",
      LOG_LEVEL: "warn",
      DATA_DIR: dataDir,
      ...extra,
    },
  });
}

function output(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return () => ({ stdout, stderr });
}

/** Runs the server to its exit: the one stderr line it printed and its exit code. */
async function refusal(dataDir: string, extra: Record<string, string> = {}) {
  const child = run(dataDir, extra);
  const out = output(child);
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const lines = out().stderr.trim().split("\n");
  expect(lines, out().stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^sandbox-server: /);
  return { code, line: lines[0] ?? "" };
}

/** Starts the server, waits until it listens, stops it with SIGTERM. */
async function startsAndStops(dataDir: string, extra: Record<string, string> = {}): Promise<void> {
  const child = run(dataDir, extra);
  const out = output(child);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  try {
    await expect
      .poll(() => out().stdout, { timeout: 30_000, interval: 50 })
      .toContain("Sandbox Server is listening");
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited).toBe(0);
}

/** A data directory whose database holds a webhook secret sealed with `key`. */
async function dataDirWithSecrets(key: Buffer): Promise<string> {
  const dataDir = mkdtempSync(path.join(scratch, "data-"));
  const store = createSqliteStore(path.join(dataDir, "sandbox-server.db"), {
    secretBox: createSecretBox(key),
  });
  await store.users.insert({ id: "usr_x", name: "x", isAdmin: true, createdAt: 1 });
  await store.webhooks.insert({
    id: "wh_1",
    ownerId: "usr_x",
    url: "https://example.com/hook",
    events: null,
    conversationId: null,
    secret: `whsec_${randomBytes(12).toString("hex")}`,
    createdAt: 1,
  });
  await store.close();
  return dataDir;
}

describe("secrets key at start-up (the built server)", () => {
  it("refuses a SECRETS_KEY that is not 32 bytes in one line, exit 2, without echoing it", async () => {
    const bad = `${randomBytes(31).toString("hex")}`;
    const { code, line } = await refusal(mkdtempSync(path.join(scratch, "data-")), {
      SECRETS_KEY: bad,
    });
    expect(code).toBe(2);
    expect(line).toContain("SECRETS_KEY must be 32 bytes as 64 hex characters or base64");
    expect(line).not.toContain(bad);
  });

  it("starts with the key the database was written with and refuses any other", async () => {
    const key = randomBytes(32);
    const dataDir = await dataDirWithSecrets(key);
    // Control: the right key (hex or base64) starts it.
    await startsAndStops(dataDir, { SECRETS_KEY: key.toString("hex") });
    await startsAndStops(dataDir, { SECRETS_KEY: key.toString("base64") });

    const other = randomBytes(32).toString("hex");
    const wrong = await refusal(dataDir, { SECRETS_KEY: other });
    expect(wrong.code).toBe(2);
    expect(wrong.line).toMatch(
      /the one encrypted secret in the database does not decrypt with this key: the database was written with another key \(the key is SECRETS_KEY\)/,
    );
    expect(wrong.line).not.toContain(other);

    // Without SECRETS_KEY a key file is generated, does not fit, and is removed again.
    const missing = await refusal(dataDir);
    expect(missing.code).toBe(2);
    expect(missing.line).toMatch(/secrets-key was missing and a new key was generated/);
    expect(existsSync(path.join(dataDir, "secrets-key"))).toBe(false);
  });

  it("creates its key file with mode 0600 and refuses it once others can read it", async () => {
    const dataDir = mkdtempSync(path.join(scratch, "data-"));
    await startsAndStops(dataDir);
    const file = path.join(dataDir, "secrets-key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await startsAndStops(dataDir);
    chmodSync(file, 0o644);
    const { code, line } = await refusal(dataDir);
    expect(code).toBe(2);
    expect(line).toContain(`${file} can be read by other users (mode 0644); run chmod 600 ${file}`);
  });
});
