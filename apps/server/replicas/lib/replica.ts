import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type ApiResponse, apiCall } from "../../test/api-call";

const serverDir = fileURLToPath(new URL("../..", import.meta.url));
const LISTENING = /"replica":"(rpl_[0-9a-f]+)".*sandbox server listening on (http:\/\/[^\s"]+)/;

/** One control plane as `sandbox-server` runs it (src/main.ts through tsx), as a child process. */
export interface Replica {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** Its id among the replicas (the holder of its leases), from its listening line. */
  readonly replicaId: string;
  output(): string;
  api(method: string, route: string, body?: unknown): Promise<ApiResponse>;
  /** Sends a signal and waits until the process has ended. */
  kill(signal: NodeJS.Signals): Promise<void>;
  alive(): boolean;
}

const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

export async function startReplica(
  name: string,
  adminKey: string,
  env: Record<string, string>,
): Promise<Replica> {
  let captured = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/root",
      ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  const [replicaId, url] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: no listening line:\n${captured}`)),
      90_000,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      captured += chunk.toString();
      const match = LISTENING.exec(captured);
      if (match?.[1] && match[2]) {
        clearTimeout(timer);
        resolve([match[1], match[2]]);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      captured += chunk.toString();
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${captured}`));
    });
  });
  return {
    name,
    url,
    replicaId,
    pid: child.pid ?? -1,
    output: () => captured,
    alive: () => child.exitCode === null && child.signalCode === null,
    api: (method, route, body) => apiCall(url, method, route, { key: adminKey, body }),
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill(signal);
      await exited;
    },
  };
}
