import { spawn } from "node:child_process";

export interface CommandOptions {
  cwd: string;
  timeoutSeconds: number;
  env: Record<string, string>;
  /** Aborting kills the command's process group (pause, delete, shutdown). */
  signal?: AbortSignal;
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
}

export interface CommandResult {
  /** -1 when timed out, interrupted or not started; 128+n when killed by signal n. */
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  interrupted: boolean;
}

export interface RunningCommand {
  pid: number | undefined;
  done: Promise<CommandResult>;
}

/** Output kept per stream for the result; beyond it only onOutput sees the text. */
const MAX_KEPT_CHARS = 1_000_000;
/** Background jobs may keep our pipes open after bash exits; stop waiting for them after this. */
const DRAIN_AFTER_EXIT_MS = 200;

/**
 * Runs `bash -c command` as the leader of a new process group (`detached: true`), so that a
 * timeout or abort can kill everything it started with `process.kill(-pid)`.
 */
export function runCommand(command: string, options: CommandOptions): RunningCommand {
  const child = spawn("bash", ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  let timedOut = false;
  let interrupted = false;

  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const collect = (stream: "stdout" | "stderr") => (text: string) => {
    if (output[stream].length < MAX_KEPT_CHARS) output[stream] += text;
    options.onOutput?.(stream, text);
  };
  child.stdout.setEncoding("utf8").on("data", collect("stdout"));
  child.stderr.setEncoding("utf8").on("data", collect("stderr"));

  const done = new Promise<CommandResult>((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutSeconds * 1000);
    const onAbort = () => {
      interrupted = true;
      killGroup();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    let exitCode = -1;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      const failed = timedOut || interrupted;
      resolve({ exitCode: failed ? -1 : exitCode, ...trimmed(output), timedOut, interrupted });
    };
    child.on("error", (error) => {
      output.stderr += `${error.message}\n`;
      settle();
    });
    child.on("exit", (code, signal) => {
      exitCode = code ?? 128 + signalNumber(signal);
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle();
      }, DRAIN_AFTER_EXIT_MS).unref();
    });
    child.on("close", settle);
  });
  return { pid: child.pid, done };
}

function trimmed(output: { stdout: string; stderr: string }) {
  return {
    stdout: output.stdout.slice(0, MAX_KEPT_CHARS),
    stderr: output.stderr.slice(0, MAX_KEPT_CHARS),
  };
}

/** node:os is fetched here, when a command was killed, not with this module at the first call. */
function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? process.getBuiltinModule("node:os").constants.signals[signal] : 0;
}
