import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./bare-forwarder.mjs", import.meta.url));
const pipeScript = fileURLToPath(new URL("./bare-pipe.mjs", import.meta.url));

export interface Forwarder {
  /** Base URL; POST `${url}/forward/<conversation id>`. */
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bare-forwarder.mjs as its own node process in front of one agent server. */
export function startForwarder(targetUrl: string, sessionApiKey: string): Promise<Forwarder> {
  return startScript(script, { TARGET_URL: targetUrl, SESSION_API_KEY: sessionApiKey });
}

/**
 * Starts bare-pipe.mjs as its own node process: every connection piped to `host:port` and back,
 * nothing read (the least any user-space proxy does).
 */
export function startBarePipe(host: string, port: number): Promise<Forwarder> {
  return startScript(pipeScript, { TARGET_HOST: host, TARGET_PORT: String(port) });
}

async function startScript(file: string, env: Record<string, string>): Promise<Forwarder> {
  const child = spawn(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`forwarder did not start:\n${output}`)),
      10_000,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`forwarder exited (${code}):\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    async stop() {
      process.off("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
