import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

export const bin = fileURLToPath(new URL("../bin/sandbox-server.mjs", import.meta.url));

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built command as a person would, with only the given environment on top. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: cleanEnv(env), cwd },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The test process's environment without anything that would pick a server or key for us. */
export function cleanEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    "SANDBOX_SERVER_URL",
    "SANDBOX_API_KEY",
    "DATA_DIR",
    "ADMIN_API_KEY",
    "PORT",
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

export interface StartedServer {
  url: string;
  dataDir: string;
  /** The environment a person would set to use this server: its URL and its data directory. */
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  output(): string;
  /** Deletes every sandbox the admin has, then stops the command with `signal` (SIGTERM). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `sandbox-server start --no-build` on a free port with the process runtime and a fresh data dir. */
export async function startServerWithCli(): Promise<StartedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-cli-test-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = "";
  const child = spawn(
    process.execPath,
    [
      bin,
      "start",
      "--no-build",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--runtime",
      "process",
    ],
    {
      env: cleanEnv({ LOG_LEVEL: "warn", ALLOW_UNISOLATED_MULTI_USER: "true" }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const keyFile = path.join(dataDir, "admin-api-key");
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited early: ${output}`);
    const healthy = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy && existsSync(keyFile)) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not come up: ${output}`);
    }
    await sleep(100);
  }
  const env = { SANDBOX_SERVER_URL: url, DATA_DIR: dataDir };
  return {
    url,
    dataDir,
    env,
    process: child,
    output: () => output,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      try {
        const apiKey = readFileSync(keyFile, "utf8").trim();
        const headers = { authorization: `Bearer ${apiKey}` };
        const page = (await (
          await fetch(`${url}/api/v1/sandboxes/search`, { headers })
        ).json()) as {
          items: { id: string }[];
        };
        for (const sandbox of page.items) {
          await fetch(`${url}/api/v1/sandboxes/${sandbox.id}`, { method: "DELETE", headers });
        }
      } finally {
        child.kill(signal);
      }
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
