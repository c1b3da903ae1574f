import type { IncomingMessage } from "node:http";
import type Dockerode from "dockerode";
import type { RuntimeLogger } from "../types";
import { MANAGED_LABEL, SANDBOX_ID_LABEL } from "./labels";

export interface ContainerExit {
  sandboxId: string;
  exitCode: number | null;
}

const RETRY_DELAYS_MS = [500, 1000, 2000, 5000];

/**
 * Follows the daemon's `die` events for managed containers, so an exit is known when it happens
 * rather than at the next inspect. Reconnects after a daemon restart and replays from the last
 * event seen (`since`), so a die that happened meanwhile is not lost.
 */
export class ContainerExitWatcher {
  private stream: NodeJS.ReadableStream | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private lastEventSeconds: number | null = null;
  private stopped = true;

  constructor(
    private readonly docker: Dockerode,
    private readonly instance: string,
    private readonly onExit: (exit: ContainerExit) => void,
    private readonly logger: RuntimeLogger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const stream = this.stream;
    this.stream = null;
    if (stream && "destroy" in stream && typeof stream.destroy === "function") stream.destroy();
  }

  private async connect(): Promise<void> {
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.getEvents({
        ...(this.lastEventSeconds === null ? {} : { since: this.lastEventSeconds }),
        filters: {
          type: ["container"],
          event: ["die"],
          label: [`${MANAGED_LABEL}=${this.instance}`],
        },
      });
    } catch (error) {
      this.scheduleReconnect(error);
      return;
    }
    if (this.stopped) {
      if ("destroy" in stream && typeof stream.destroy === "function") stream.destroy();
      return;
    }
    this.stream = stream;
    this.failures = 0;
    // Watching must not keep a process alive that has nothing else to do (like ProcessRuntime's
    // unref'd watch timer); the control plane's HTTP server keeps it alive anyway.
    (stream as Partial<IncomingMessage>).socket?.unref();
    let buffered = "";
    stream.on("data", (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") this.handle(line);
    });
    stream.on("error", (error: unknown) => this.onStreamEnd(stream, error));
    stream.on("end", () => this.onStreamEnd(stream, null));
  }

  private handle(line: string): void {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    const exit = readDieEvent(event);
    if (exit === null) return;
    this.lastEventSeconds = exit.timeSeconds;
    this.onExit({ sandboxId: exit.sandboxId, exitCode: exit.exitCode });
  }

  private onStreamEnd(stream: NodeJS.ReadableStream, error: unknown): void {
    if (this.stream !== stream) return;
    this.stream = null;
    if (!this.stopped) this.scheduleReconnect(error ?? new Error("event stream ended"));
  }

  private scheduleReconnect(error: unknown): void {
    if (this.stopped) return;
    const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)] ?? 5000;
    this.failures += 1;
    this.logger.warn(
      { err: error, retryInMs: delay },
      "docker event stream lost; exits are seen at the next inspect until it is back",
    );
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }
}

function readDieEvent(
  event: unknown,
): { sandboxId: string; exitCode: number | null; timeSeconds: number } | null {
  if (typeof event !== "object" || event === null) return null;
  if (!("Action" in event) || event.Action !== "die") return null;
  if (!("Actor" in event) || typeof event.Actor !== "object" || event.Actor === null) return null;
  const attributes: unknown = "Attributes" in event.Actor ? event.Actor.Attributes : null;
  if (typeof attributes !== "object" || attributes === null) return null;
  const values = attributes as Record<string, unknown>;
  const sandboxId = values[SANDBOX_ID_LABEL];
  if (typeof sandboxId !== "string" || typeof values[MANAGED_LABEL] !== "string") return null;
  const exitCode = Number(values.exitCode);
  const time = "time" in event && typeof event.time === "number" ? event.time : null;
  return {
    sandboxId,
    exitCode: Number.isInteger(exitCode) ? exitCode : null,
    timeSeconds: time ?? Math.floor(Date.now() / 1000),
  };
}
