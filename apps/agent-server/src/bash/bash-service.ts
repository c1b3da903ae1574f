import { randomUUID } from "node:crypto";
import path from "node:path";
import type {
  BashCommand,
  BashEvent,
  BashOutput,
  ExecuteBashRequest,
} from "@sandbox-server/agent-contracts";
import { nextInstant } from "../clock";
import { AppError } from "../errors";
import { isDirectory } from "../files/ensure-directory";
import type { Logger } from "../logger";
import { runCommand } from "./run-command";

export interface BashServiceOptions {
  workspaceDir: string;
  commandEnv: Record<string, string>;
  logger: Logger;
}

/** Output is published in chunks at most this often while a command runs. */
const FLUSH_INTERVAL_MS = 100;
/** Bash events are kept in memory only; the oldest go first beyond these bounds. */
const MAX_EVENTS = 10_000;
const MAX_KEPT_CHARS = 20_000_000;

/**
 * Commands started through `/api/bash`, each in its own process group, and their events
 * (BashCommand, then BashOutput chunks; the last chunk carries the exit code).
 */
export class BashService {
  private events: BashEvent[] = [];
  private keptChars = 0;
  private readonly running = new Map<
    string,
    { controller: AbortController; done: Promise<unknown> }
  >();

  constructor(private readonly options: BashServiceOptions) {}

  /** Starts a command; `done` resolves with its whole output and exit code. */
  start(request: ExecuteBashRequest): { command: BashCommand; done: Promise<BashOutput> } {
    const cwd = this.resolveCwd(request.cwd);
    const command: BashCommand = {
      id: randomUUID(),
      timestamp: nextInstant().iso,
      kind: "BashCommand",
      command: request.command,
      cwd,
      timeout: request.timeout,
    };
    this.record(command);
    const controller = new AbortController();
    const done = this.follow(command, controller.signal).finally(() => {
      this.running.delete(command.id);
    });
    this.running.set(command.id, { controller, done });
    this.options.logger.info("bash command started", { command_id: command.id });
    return { command, done };
  }

  /** Oldest first. */
  list(): readonly BashEvent[] {
    return this.events;
  }

  async stopAll(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort();
    await Promise.all(runs.map((run) => run.done));
  }

  private async follow(command: BashCommand, signal: AbortSignal): Promise<BashOutput> {
    let order = 0;
    const pending = { stdout: "", stderr: "" };
    const emit = (exitCode: number | null): BashOutput => {
      const output: BashOutput = {
        id: randomUUID(),
        timestamp: nextInstant().iso,
        kind: "BashOutput",
        command_id: command.id,
        order: order++,
        exit_code: exitCode,
        stdout: pending.stdout || null,
        stderr: pending.stderr || null,
      };
      pending.stdout = "";
      pending.stderr = "";
      this.record(output);
      return output;
    };
    const flusher = setInterval(() => {
      if (pending.stdout || pending.stderr) emit(null);
    }, FLUSH_INTERVAL_MS);
    try {
      const result = await runCommand(command.command, {
        cwd: command.cwd,
        timeoutSeconds: command.timeout,
        env: this.options.commandEnv,
        signal,
        onOutput: (stream, text) => {
          pending[stream] += text;
        },
      }).done;
      const last = emit(result.exitCode);
      // The caller of execute gets the whole output, not only the last chunk (upstream quirk).
      return { ...last, stdout: result.stdout || null, stderr: result.stderr || null };
    } finally {
      clearInterval(flusher);
    }
  }

  private resolveCwd(cwd: string | null | undefined): string {
    const resolved = path.resolve(this.options.workspaceDir, cwd ?? ".");
    if (resolved.includes("\0") || !isDirectory(resolved)) {
      throw new AppError("BAD_REQUEST", "cwd is not an existing directory");
    }
    return resolved;
  }

  private record(event: BashEvent): void {
    this.events.push(event);
    this.keptChars += sizeOf(event);
    while (this.events.length > MAX_EVENTS || this.keptChars > MAX_KEPT_CHARS) {
      const dropped = this.events.shift();
      if (!dropped) break;
      this.keptChars -= sizeOf(dropped);
    }
  }
}

function sizeOf(event: BashEvent): number {
  return event.kind === "BashOutput"
    ? (event.stdout?.length ?? 0) + (event.stderr?.length ?? 0)
    : event.command.length;
}
