import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { detectNetns, NETNS_POOL_SIZE, poolPrefixOf } from "@sandbox-server/runtime";
import { afterAll, describe, expect, it } from "vitest";

// The built control plane (turbo builds it before tests), started as `npm start` starts it.
const bundle = fileURLToPath(new URL("../dist/server.js", import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), "sandbox-server-startup-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    SANDBOX_RUNTIME: "process",
    PORT: "0",
    LOG_LEVEL: "warn",
    DATA_DIR: mkdtempSync(path.join(scratch, "data-")),
    ...extra,
  };
}

function runToExit(extra: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [bundle], { env: baseEnv(extra) });
  const out = collect(child);
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve({ code, ...out() }));
  });
}

function collect(child: ChildProcess): () => { stdout: string; stderr: string } {
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

/** Starts the server, waits for its start-up lines, stops it (SIGTERM), returns what it printed. */
async function startAndStop(env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [bundle], { env });
  const out = collect(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await expect.poll(() => out().stdout, { timeout: 30_000, interval: 50 }).toContain("Admin key:");
  child.kill("SIGTERM");
  await exited;
  return out().stdout;
}

describe("configuration errors", () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ["PORT that is not a port", { PORT: "eighty" }, /PORT must be a port number/],
    ["a port out of range", { PORT: "70000" }, /PORT must be a port number/],
    ["an admin key too short", { ADMIN_API_KEY: "short" }, /ADMIN_API_KEY must be at least 16/],
    ["an unknown runtime", { SANDBOX_RUNTIME: "vm" }, /SANDBOX_RUNTIME .*"vm"/],
    [
      "an unreachable Docker endpoint with SANDBOX_RUNTIME=docker",
      { SANDBOX_RUNTIME: "docker", DOCKER_HOST: `unix://${path.join(scratch, "no.sock")}` },
      /no Docker daemon answers at .*no\.sock/,
    ],
    [
      "a DOCKER_HOST that cannot be parsed",
      { SANDBOX_RUNTIME: "docker", DOCKER_HOST: "unix://relative" },
      /DOCKER_HOST/,
    ],
    [
      "a metadata address in SANDBOX_EGRESS_ALLOW",
      { SANDBOX_EGRESS_ALLOW: "127.0.0.1:11434, 169.254.169.254" },
      /SANDBOX_EGRESS_ALLOW entry "169\.254\.169\.254": the metadata address 169\.254\.169\.254 is never allowed/,
    ],
    [
      "a loopback entry without a port in SANDBOX_EGRESS_ALLOW",
      { SANDBOX_EGRESS_ALLOW: "127.0.0.1" },
      /SANDBOX_EGRESS_ALLOW entry "127\.0\.0\.1": a host-loopback entry needs a port/,
    ],
  ];
  it.each(cases)("%s: one line, exit 2", async (_name, env, message) => {
    const result = await runToExit(env);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sandbox-server: /);
    expect(lines[0]).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("a DATA_DIR that is a file: one line, exit 2", async () => {
    const file = path.join(scratch, "a-file");
    writeFileSync(file, "not a directory");
    const result = await runToExit({ DATA_DIR: file });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^sandbox-server: DATA_DIR .*a-file is not a directory/);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a DATABASE_URL that is not a PostgreSQL URL: one line, exit 2, the value not shown", async () => {
    const result = await runToExit({ DATABASE_URL: "mysql://u:hidden-pw-1@db/x" });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^sandbox-server: .*DATABASE_URL must be a postgres:\/\//);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toContain("hidden-pw-1");
  });

  it("a DATABASE_URL where no PostgreSQL answers: one line, exit 2, no password", async () => {
    const result = await runToExit({ DATABASE_URL: "postgres://u:hidden-pw-2@127.0.0.1:1/db" });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^sandbox-server: DATABASE_URL: cannot use the database at postgres:\/\/u@127\.0\.0\.1:1\/db: .*ECONNREFUSED/,
    );
    expect(result.stderr).not.toContain("hidden-pw-2");
  });

  it("never echoes a secret it refuses", async () => {
    const result = await runToExit({ ADMIN_API_KEY: "secret-123" });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("secret-123");
  });
});

describe("start-up lines", () => {
  it("name the URL, the docs, the runtime's isolation and the admin key, on every start", async () => {
    const env = baseEnv({});
    const first = await startAndStop(env);
    expect(first).toMatch(/Sandbox Server is listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(first).toMatch(/API docs: +http:\/\/127\.0\.0\.1:\d+\/docs/);
    expect(first).toMatch(/Runtime: +process, isolation: /);
    const keyFile = path.join(env.DATA_DIR ?? "", "admin-api-key");
    expect(first).toContain(`Admin key:  ${keyFile}`);
    // A second start (key already on disk) says where it is again.
    const second = await startAndStop(env);
    expect(second).toContain(`Admin key:  ${keyFile}`);
  });
});

describe("a Docker endpoint set explicitly that does not answer", () => {
  const dead = () => `unix://${path.join(scratch, "nothing-here.sock")}`;

  it("DOCKER_HOST under SANDBOX_RUNTIME=auto: processes, and a start-up line names it", async () => {
    const unset = await startAndStop(baseEnv({ SANDBOX_RUNTIME: "auto", DOCKER_HOST: "" }));
    expect(unset).not.toMatch(/NOTE:/);
    const named = await startAndStop(baseEnv({ SANDBOX_RUNTIME: "auto", DOCKER_HOST: dead() }));
    expect(named).toMatch(/Runtime: +process/);
    expect(named).toContain(`NOTE: DOCKER_HOST=${dead()} does not answer`);
  });

  it("an entry of DOCKER_HOSTS: the others serve, and a start-up line names it", async () => {
    const env = baseEnv({
      SANDBOX_RUNTIME: "auto",
      DOCKER_HOSTS: `live=unix:///var/run/docker.sock@127.0.0.1,gone=${dead()}@127.0.0.1`,
    });
    try {
      const out = await startAndStop(env);
      expect(out).toMatch(/Runtime: +docker/);
      const notes = out.split("\n").filter((line) => line.includes("NOTE:"));
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(/DOCKER_HOSTS: Docker host gone .*nothing-here\.sock/);
    } finally {
      removeInstanceNetwork(env.DATA_DIR ?? "");
    }
  });
});

/** The Docker network a docker-runtime start made for its instance, if its stop left it. */
function removeInstanceNetwork(dataDir: string): void {
  const file = path.join(dataDir, "instance-id");
  if (!existsSync(file)) return;
  const network = `sandbox-server-${readFileSync(file, "utf8").trim()}`;
  const found = execFileSync("docker", ["network", "ls", "-q", "--filter", `name=^${network}$`], {
    encoding: "utf8",
  }).trim();
  if (found) execFileSync("docker", ["network", "rm", network]);
}

describe("stopping", () => {
  it("shuts down gracefully (exit 0) on a SIGTERM sent the moment the start-up lines appear", async () => {
    // Three times: the window between the banner and the signal handlers, when there was one,
    // was hit by most immediate signals.
    for (let i = 0; i < 3; i++) {
      const child = spawn(process.execPath, [bundle], { env: baseEnv({}) });
      let stdout = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("Sandbox Server is listening")) child.kill("SIGTERM");
      });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once("exit", (c, s) => resolve([c, s])),
      );
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    }
  });
});

describe("the warm network namespace pool", () => {
  // Process sandboxes with a network of their own (root, pasta, nftables): in CI they are there.
  const ownNetwork = detectNetns().usable || process.env.CI === "true";

  /** The pool's namespaces for the sandboxes of `dataDir`. */
  function pooled(dataDir: string): string[] {
    const prefix = `${poolPrefixOf(path.resolve(dataDir, "sandboxes"))}-`;
    return readdirSync("/run/netns").filter((name) => name.startsWith(prefix));
  }

  function start(env: NodeJS.ProcessEnv) {
    const child = spawn(process.execPath, [bundle], { env });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once("exit", (code, signal) => resolve([code, signal])),
    );
    return { child, exited };
  }

  it.runIf(ownNetwork)(
    "is removed by a SIGTERM shutdown, and what a killed server left by the next start",
    async () => {
      const env = baseEnv({ SANDBOX_RUNTIME: "process" });
      const dataDir = env.DATA_DIR ?? "";
      const first = start(env);
      await expect.poll(() => pooled(dataDir).length, { timeout: 30_000 }).toBe(NETNS_POOL_SIZE);
      first.child.kill("SIGTERM");
      expect(await first.exited).toEqual([0, null]);
      expect(pooled(dataDir)).toEqual([]);

      // Killed: nothing runs its close, its pool stays...
      const killed = start(env);
      await expect.poll(() => pooled(dataDir).length, { timeout: 30_000 }).toBe(NETNS_POOL_SIZE);
      const left = pooled(dataDir);
      killed.child.kill("SIGKILL");
      await killed.exited;
      expect(pooled(dataDir)).toEqual(left);
      // ...until the next start, whose own pool replaces it.
      const next = start(env);
      await expect
        .poll(() => pooled(dataDir).filter((name) => left.includes(name)), { timeout: 30_000 })
        .toEqual([]);
      next.child.kill("SIGTERM");
      expect(await next.exited).toEqual([0, null]);
      expect(pooled(dataDir)).toEqual([]);
    },
  );
});
