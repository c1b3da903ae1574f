import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ADMIN_KEY = "ssk_bench_admin_key_0123456789";
const root = fileURLToPath(new URL("../..", import.meta.url));
// Another build (e.g. of a commit checked out elsewhere) can be measured with these two variables.
export const serverBundle =
  process.env.BENCH_SERVER_BUNDLE ?? path.join(root, "apps/server/dist/server.js");
export const agentServerEntry =
  process.env.BENCH_AGENT_SERVER_BUNDLE ??
  path.join(root, "apps/agent-server/dist/agent-server.js");
export const profilesDir = path.join(root, "bench/results/profiles");

/** The V8 flags and environment of production runs (apps/server/node-flags.mjs). */
async function serverLaunch(): Promise<{ flags: string[]; env: Record<string, string> }> {
  const file = path.join(root, "apps/server/node-flags.mjs");
  const loaded = (await import(pathToFileURL(file).href)) as {
    SERVER_NODE_FLAGS: string[];
    SERVER_ENV: Record<string, string>;
  };
  return { flags: loaded.SERVER_NODE_FLAGS, env: loaded.SERVER_ENV };
}

export interface ControlPlaneOptions {
  runtime: "process" | "docker";
  dataDir?: string;
  env?: Record<string, string>;
  /** Write a V8 CPU profile of the control plane to bench/results/profiles on stop. */
  cpuProfile?: boolean;
}

export interface ControlPlane {
  url: string;
  pid: number;
  dataDir: string;
  /** JSON in, JSON out, with the admin key. */
  api: (method: string, route: string, body?: unknown) => Promise<{ status: number; body: Json }>;
  stop(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read structurally
export type Json = any;

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** The built control plane (apps/server/dist/server.js) as its own process, as in production. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "sandbox-bench-"));
  const launch = await serverLaunch();
  const args = [...launch.flags, serverBundle];
  if (options.cpuProfile) {
    mkdirSync(profilesDir, { recursive: true });
    args.unshift("--cpu-prof", `--cpu-prof-dir=${profilesDir}`);
  }
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    env: {
      ...launch.env,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      SANDBOX_RUNTIME: options.runtime,
      AGENT_SERVER_ENTRY: agentServerEntry,
      LOG_LEVEL: "warn",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  const url = `http://127.0.0.1:${port}`;
  // At LOG_LEVEL=warn the listening line is not printed: wait for /health instead.
  const deadline = Date.now() + 30_000;
  // A control plane that never came up takes its process and the data directory we made with it.
  const fail = (message: string) => {
    child.kill("SIGKILL");
    live.delete(child);
    if (!options.dataDir) removeDataDir(dataDir);
    return new Error(`${message}:\n${output}`);
  };
  for (;;) {
    if (child.exitCode !== null) throw fail(`control plane exited (${child.exitCode})`);
    if (Date.now() > deadline) throw fail("control plane did not start");
    const healthy = await fetch(`${url}/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (healthy) break;
    await sleep(50);
  }
  const api: ControlPlane["api"] = async (method, route, body) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    url,
    pid: child.pid ?? -1,
    dataDir,
    api,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      live.delete(child);
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Removes a data directory once its sandboxes are deleted; first kills any process still marked
 * as one of its sandboxes' (SANDBOX_DIR, the process runtime's marker), e.g. after a failed figure.
 */
export function removeDataDir(dataDir: string): void {
  const marker = `SANDBOX_DIR=${path.join(dataDir, "sandboxes")}/`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (environ.some((v) => v.startsWith(marker))) process.kill(Number(entry), "SIGKILL");
    } catch {
      // gone, or not ours to read
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
}
