import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Api, createApi } from "./api";
import { removeAllSandboxes } from "./sandboxes";

export const ADMIN_KEY = "ssk_reliability_admin_key_0123456789";

const serverDir = fileURLToPath(new URL("../..", import.meta.url));
/** The built control plane; SANDBOX_SERVER_BUNDLE points the suite at another build. */
export const serverBundle =
  process.env.SANDBOX_SERVER_BUNDLE ?? path.join(serverDir, "dist/server.js");

export interface ServerProcessOptions {
  /** Reuse a data directory (a restart); a fresh temporary one otherwise. */
  dataDir?: string;
  env?: Record<string, string>;
  /** The control-plane bundle to run (another checkout's); its agent server comes beside it. */
  bundle?: string;
  /**
   * The admin key given as ADMIN_API_KEY (default ADMIN_KEY); null gives none, so the server
   * writes one to DATA_DIR/admin-api-key on its first start, as it does for a person.
   */
  adminKey?: string | null;
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly dataDir: string;
  /** The admin key: the one given, or the one the server wrote to its data directory. */
  readonly adminKey: string;
  readonly api: Api;
  /** Everything the process wrote to stdout and stderr so far (all of its runs). */
  output(): string;
  /** Sends a signal and waits for the process to end. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Starts the control plane again on the same data directory and environment. */
  restart(): Promise<void>;
  /** Stops the control plane, removes every sandbox and the data directory. */
  dispose(): Promise<void>;
}

const LISTENING = /sandbox server listening on (http:\/\/[^\s"]+)/;
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** The control-plane bundle as a child process, as it runs in production (process runtime). */
export async function startServerProcess(
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), "sandbox-reliability-"));
  const bundle = options.bundle ?? serverBundle;
  const given = options.adminKey === undefined ? ADMIN_KEY : options.adminKey;
  let captured = "";
  let child: ChildProcess;
  let url = "";

  const launch = async () => {
    child = spawn(process.execPath, [bundle], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/root",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        ...(given === null ? {} : { ADMIN_API_KEY: given }),
        SANDBOX_RUNTIME: "process",
        AGENT_SERVER_ENTRY: path.resolve(
          path.dirname(bundle),
          "../../agent-server/dist/agent-server.js",
        ),
        LOG_LEVEL: "info",
        ...options.env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    live.add(child);
    child.once("exit", () => live.delete(child));
    // Only this run's output: after a restart the previous run's listening line (with its old
    // port) is still in `captured`.
    const runStart = captured.length;
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${captured}`)), 20_000);
      const onData = (chunk: Buffer) => {
        captured += chunk.toString();
        const match = LISTENING.exec(captured.slice(runStart));
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (chunk: Buffer) => {
        captured += chunk.toString();
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`control plane exited (${code ?? signal}) before listening:\n${captured}`),
        );
      });
    });
  };

  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill(signal);
    await exited;
  };

  await launch();
  // The key file is written before the server listens.
  const adminKey = given ?? readFileSync(path.join(dataDir, "admin-api-key"), "utf8").trim();
  const server: ServerProcess = {
    get url() {
      return url;
    },
    get pid() {
      return child.pid ?? -1;
    },
    dataDir,
    adminKey,
    api: createApi(() => url, adminKey),
    output: () => captured,
    kill,
    async restart() {
      await kill("SIGTERM");
      await launch();
    },
    async dispose() {
      await kill("SIGTERM");
      await removeAllSandboxes(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}
