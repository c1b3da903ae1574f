import { type ChildProcess, spawn } from "node:child_process";
import { type FSWatcher, watch } from "node:fs";
import { constants } from "node:os";
import type { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { findListeningPort, openLogForRun, readLogFrom, readLogTail } from "./agent-server-log";

export interface LaunchOptions {
  /** Full argv, `--port 0 --host ...` included. */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  logFile: string;
  /** How long the process may take to print its listening line. */
  listenTimeoutMs: number;
  /** Written to the child's fd 3, which is then closed. */
  fd3?: Buffer | null;
  /** Likewise fd 4. */
  fd4?: Buffer | null;
  /** The process is a wrapper (bwrap) that exits with 128 + n when its program got signal n. */
  exitCodesCarrySignals?: boolean;
  /** Ends every process of this launch (more than the child's group, under bwrap). */
  killAll: () => Promise<void>;
  /**
   * Called once the process exists, before its listening line is awaited: work that need not
   * precede it (each spawn holds the control plane's thread while its address space is copied)
   * then overlaps the agent server's own start.
   */
  onSpawned?: (pid: number, logOffset: number) => void;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be spawned at all. */
  spawnError?: Error;
}

export interface LaunchedAgentServer {
  child: ChildProcess;
  /** Also the process-group id (the child is spawned detached). */
  pid: number;
  port: number;
  logOffset: number;
  /** Settles once the process has exited. */
  exited: Promise<ExitInfo>;
}

/** The process ended (or was ended) before it was listening; `detail` says why. */
export class LaunchFailure extends Error {}

/**
 * Spawns the agent server in its own process group and waits for its listening line, which is
 * how we learn the port it picked for `--port 0` (no window in which another process could take
 * a port we chose). On failure the process is gone and a LaunchFailure carries the reason.
 */
export async function launchAgentServer(options: LaunchOptions): Promise<LaunchedAgentServer> {
  const log = await openLogForRun(options.logFile);
  const [command = "", ...args] = options.argv;
  let child: ChildProcess;
  let exited: Promise<ExitInfo>;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      // Own session and group: signals meant for the control plane (a terminal's Ctrl-C, its
      // group being killed) do not reach the sandbox, which outlives it.
      detached: true,
      stdio: ["ignore", log.handle.fd, log.handle.fd, ...extraFds(options.fd3, options.fd4)],
    });
    // Before any await: a process that exits at once (a bad command) would otherwise emit
    // 'exit' unheard, and everything waiting on `exited` would wait forever.
    exited = watchExit(child, options.exitCodesCarrySignals ?? false);
    if (options.fd3) writeAndClose(child.stdio[3] as Writable | null, options.fd3);
    if (options.fd4) writeAndClose(child.stdio[4] as Writable | null, options.fd4);
    if (child.pid !== undefined) options.onSpawned?.(child.pid, log.offset);
  } finally {
    await log.handle.close();
  }
  // Nothing of ours (no pipes) keeps the control plane alive for the child's sake.
  child.unref();
  let exitInfo: ExitInfo | null = null;
  void exited.then((info) => {
    exitInfo = info;
  });

  // An unreadable log counts as silence: the process is then taken down like a silent one.
  const port = await waitForListeningLine(options, log.offset, () => exitInfo !== null).catch(
    () => null,
  );
  const pid = child.pid;
  if (port !== null && pid !== undefined && exitInfo === null) {
    return { child, pid, port, logOffset: log.offset, exited };
  }
  if (exitInfo === null && pid !== undefined) {
    // Alive but silent: not an agent server we can use. Take it down before reporting.
    await options.killAll();
    await exited;
    const tail = await readLogTail(options.logFile, log.offset);
    throw new LaunchFailure(
      withOutput(
        `agent server printed no listening line within ${options.listenTimeoutMs} ms`,
        tail,
      ),
    );
  }
  const info = await exited;
  const tail = await readLogTail(options.logFile, log.offset);
  throw new LaunchFailure(withOutput(describeExit(info), tail));
}

export function describeExit(info: ExitInfo): string {
  if (info.spawnError) return `agent server could not be started (${info.spawnError.message})`;
  if (info.signal) return `agent server exited (signal ${info.signal})`;
  return `agent server exited (code ${info.code ?? "unknown"})`;
}

/** Appends the process's last output, which usually holds the actual error. */
export function withOutput(detail: string, tail: string): string {
  return tail === "" ? detail : `${detail}; last output:\n${tail}`;
}

function watchExit(child: ChildProcess, exitCodesCarrySignals: boolean): Promise<ExitInfo> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) =>
      resolve(exitCodesCarrySignals ? signalFromExitCode({ code, signal }) : { code, signal }),
    );
    child.on("error", (error) => {
      // 'error' also reports failed kill()s of a live child; only a missing pid means no process.
      if (child.pid === undefined) resolve({ code: null, signal: null, spawnError: error });
    });
  });
}

/** bwrap's `128 + n` back to "signal n", as the program's death would read without it. */
export function signalFromExitCode(info: ExitInfo): ExitInfo {
  if (info.code === null || info.code <= 128) return info;
  const signal = Object.entries(constants.signals).find(([, n]) => n === (info.code ?? 0) - 128);
  return signal ? { code: null, signal: signal[0] as NodeJS.Signals } : info;
}

function extraFds(fd3?: Buffer | null, fd4?: Buffer | null): ("pipe" | "ignore")[] {
  if (fd4) return [fd3 ? "pipe" : "ignore", "pipe"];
  return fd3 ? ["pipe"] : [];
}

// A child that exits before reading breaks the pipe; its exit is reported on its own.
function writeAndClose(stream: Writable | null, data: Buffer): void {
  if (stream === null) return;
  stream.on("error", () => undefined);
  stream.end(data);
}

// The log is read again when it changes (inotify) and at least this often (a missed event, a
// file system without notifications, an exit that writes nothing).
const LOG_POLL_MS = 25;

async function waitForListeningLine(
  options: LaunchOptions,
  fromOffset: number,
  hasExited: () => boolean,
): Promise<number | null> {
  const deadline = Date.now() + options.listenTimeoutMs;
  const changes = watchChanges(options.logFile);
  let offset = fromOffset;
  let partialLine = "";
  try {
    while (Date.now() < deadline) {
      // Read once more after an exit: the line may have been written just before it.
      const exitedBeforeRead = hasExited();
      const changed = changes.next();
      const chunk = await readLogFrom(options.logFile, offset);
      offset = chunk.end;
      const text = partialLine + chunk.text;
      const lastBreak = text.lastIndexOf("\n");
      partialLine = text.slice(lastBreak + 1);
      const port = findListeningPort(text.slice(0, lastBreak + 1));
      if (port !== null) return port;
      if (exitedBeforeRead) return null;
      await Promise.race([changed, sleep(LOG_POLL_MS)]);
    }
    return null;
  } finally {
    changes.close();
  }
}

/**
 * Resolves `next()` at the file's next change after the call. The listening line is the start's
 * last step, and a fixed poll added half its interval to every start on average.
 */
function watchChanges(file: string): { next: () => Promise<void>; close: () => void } {
  let wake: (() => void) | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(file, { persistent: false }, () => wake?.());
    watcher.on("error", () => watcher?.close());
  } catch {
    // No notifications here: the poll alone.
  }
  return {
    next: () =>
      new Promise<void>((resolve) => {
        wake = resolve;
      }),
    close: () => watcher?.close(),
  };
}
