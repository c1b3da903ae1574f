/**
 * What a second control plane on one PostgreSQL is refused at start, with one line: another
 * secrets key than the database's first (generated in its own data directory, or given), and the
 * process runtime, whose sandboxes are one machine's child processes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { apiCall } from "../test/api-call";

const ADMIN_KEY = "ssk_refusals_admin_key_0123456789";
const serverDir = fileURLToPath(new URL("..", import.meta.url));
const baseUrl = inject("testDatabaseUrl");
if (!baseUrl) throw new Error("the replica suite needs PostgreSQL: TEST_DATABASE_URL or CI=true");

const scratch = mkdtempSync(path.join(tmpdir(), "sandbox-refusals-"));
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
});

async function freshDatabase(): Promise<string> {
  const name = `refusals_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

type Outcome =
  | { kind: "listening"; url: string; child: ChildProcess }
  | { kind: "refused"; code: number | null; stderr: string };

/** Starts a control plane with its own data directory: listening, or refused (its exit). */
function start(env: Record<string, string>): Promise<Outcome> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      DATA_DIR: mkdtempSync(path.join(scratch, "data-")),
      ADMIN_API_KEY: ADMIN_KEY,
      SANDBOX_IMAGE: process.env.SANDBOX_TEST_IMAGE ?? DEFAULT_SANDBOX_IMAGE,
      // Quick lease moves: a refusal waits out the holder's lease first.
      LEASE_TTL_MS: "3000",
      LEASE_RENEW_MS: "1000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  return new Promise((resolve) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[0-9.:]+)/.exec(stdout);
      if (match?.[1]) resolve({ kind: "listening", url: match[1], child });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("exit", (code) => {
      children.delete(child);
      resolve({ kind: "refused", code, stderr });
    });
  });
}

async function stop(outcome: Outcome): Promise<void> {
  if (outcome.kind !== "listening") return;
  const exited = new Promise((resolve) => outcome.child.once("exit", resolve));
  outcome.child.kill("SIGTERM");
  await exited;
}

function expectOneLine(outcome: Outcome, pattern: RegExp): void {
  expect(outcome.kind).toBe("refused");
  if (outcome.kind !== "refused") return;
  const lines = outcome.stderr.trim().split("\n");
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^sandbox-server: /);
  expect(lines[0]).toMatch(pattern);
  expect(outcome.code).toBe(2);
}

describe("a second control plane on one PostgreSQL", () => {
  it("with another secrets key, generated or given, is refused with one line naming SECRETS_KEY", async () => {
    const databaseUrl = await freshDatabase();
    const key = randomBytes(32).toString("hex");
    const env = { DATABASE_URL: databaseUrl, SANDBOX_RUNTIME: "docker" };
    const first = await start(env);
    expect(first.kind).toBe("listening");
    const second = await start(env);
    expectOneLine(second, /SECRETS_KEY/);
    expectOneLine(await start({ ...env, SECRETS_KEY: key }), /SECRETS_KEY/);
    await stop(first);
  });

  it("of two started at the same moment with different keys, exactly one starts", async () => {
    const databaseUrl = await freshDatabase();
    const env = { DATABASE_URL: databaseUrl, SANDBOX_RUNTIME: "docker" };
    const outcomes = await Promise.all([start(env), start(env)]);
    const listening = outcomes.filter((o) => o.kind === "listening");
    expect(listening).toHaveLength(1);
    for (const refused of outcomes.filter((o) => o.kind === "refused")) {
      expectOneLine(refused, /SECRETS_KEY/);
    }
    // The one that started answers a sandbox read without a 500.
    const [up] = listening;
    if (up?.kind === "listening") {
      const list = await apiCall(up.url, "GET", "/api/v1/sandboxes/search", { key: ADMIN_KEY });
      expect(list.status).toBe(200);
    }
    for (const outcome of outcomes) await stop(outcome);
  });

  it("on the process runtime is refused with one line while the first runs; the first keeps serving", async () => {
    const databaseUrl = await freshDatabase();
    const env = {
      DATABASE_URL: databaseUrl,
      SECRETS_KEY: randomBytes(32).toString("hex"),
      SANDBOX_RUNTIME: "process",
    };
    const first = await start(env);
    expect(first.kind).toBe("listening");
    expectOneLine(await start(env), /SANDBOX_RUNTIME=process runs one control plane per database/);
    if (first.kind === "listening") {
      const list = await apiCall(first.url, "GET", "/api/v1/sandboxes/search", { key: ADMIN_KEY });
      expect(list.status).toBe(200);
    }
    await stop(first);
    // Once it stopped (its lease given up), another one starts.
    const next = await start(env);
    expect(next.kind).toBe("listening");
    await stop(next);
  });
});
