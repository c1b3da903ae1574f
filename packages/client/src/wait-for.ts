import { type PollOptions, sleep, WaitTimeoutError } from "./poll";
import type { SandboxClient } from "./trpc-client";
import type { AppConversation, ExecutionStatus, Sandbox, SandboxStatus } from "./types";

/** Thrown when a sandbox reached a state it cannot leave by itself (ERROR) while waiting. */
export class SandboxFailedError extends Error {
  override readonly name = "SandboxFailedError";
  constructor(readonly sandbox: Sandbox) {
    super(
      `Sandbox ${sandbox.id} is ${sandbox.status}${sandbox.status_detail ? `: ${sandbox.status_detail}` : ""}`,
    );
  }
}

/** The server waits at most this long per request (`timeout_s`). */
const MAX_SERVER_WAIT_S = 60;

/** Whole seconds for `timeout_s`: at least 1, at most the server's bound. */
function serverWaitSeconds(leftMs: number): number {
  return Math.min(MAX_SERVER_WAIT_S, Math.max(1, Math.ceil(leftMs / 1000)));
}

/**
 * Long-polls `read` (each call waits on the server, `timeout_s`) until `settled`, or throws a
 * `WaitTimeoutError` once `timeoutMs` (default 60 s, rounded up to whole seconds) has passed.
 * When the server answers early with nothing to wait for (`idle`), pauses `intervalMs` first.
 */
async function longPoll<T>(
  read: (timeoutS: number) => Promise<T>,
  settled: (value: T) => boolean,
  idle: (value: T) => boolean,
  describe: (last: T) => string,
  options: PollOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const value = await read(serverWaitSeconds(deadline - Date.now()));
    if (settled(value)) return value;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(`${describe(value)} after ${timeoutMs} ms`);
    if (idle(value)) await sleep(Math.min(options.intervalMs ?? 1000, left), options.signal);
  }
}

/**
 * Waits for a sandbox's status to be one of `status` and returns it, with the server's long poll
 * (`GET /sandboxes/{id}?wait_for=`): no polling while it waits. Fails at once when it is ERROR
 * (unless ERROR is awaited), with a `WaitTimeoutError` after `timeoutMs`, and with the client's
 * error when the sandbox does not exist (or stops existing).
 */
export async function waitForSandboxStatus(
  client: SandboxClient,
  id: string,
  status: SandboxStatus | readonly SandboxStatus[],
  options: PollOptions = {},
): Promise<Sandbox> {
  const wanted: readonly SandboxStatus[] = typeof status === "string" ? [status] : status;
  // The server waits for one status (and always ends at ERROR); several others are polled.
  const others = wanted.filter((s) => s !== "ERROR");
  const waitFor = others[0] ?? "ERROR";
  return longPoll(
    (timeout_s) => client.sandboxes.get.query({ id, wait_for: waitFor, timeout_s }),
    (sandbox) => {
      if (wanted.includes(sandbox.status)) return true;
      if (sandbox.status === "ERROR") throw new SandboxFailedError(sandbox);
      return false;
    },
    () => others.length > 1,
    (last) => `Sandbox ${id} is ${last.status}, not ${wanted.join(" or ")},`,
    options,
  );
}

/** Execution statuses in which an agent waits for the next message (or will not go on). */
export const settledExecutionStatuses: readonly ExecutionStatus[] = [
  "idle",
  "finished",
  "paused",
  "waiting_for_confirmation",
  "error",
  "stuck",
];

/**
 * Waits until a conversation's agent is no longer running — after a message sent with
 * `run: true`, until the agent has answered it — and returns the conversation, with the server's
 * long poll (`GET /app-conversations/{id}?wait_for=settled`).
 */
export async function waitForConversationSettled(
  client: SandboxClient,
  id: string,
  options: PollOptions = {},
): Promise<AppConversation> {
  return longPoll(
    (timeout_s) => client.conversations.get.query({ id, wait_for: "settled", timeout_s }),
    (conversation) =>
      conversation.execution_status !== null &&
      settledExecutionStatuses.includes(conversation.execution_status),
    // The server answers at once while the sandbox is not running (nothing can change by itself).
    (conversation) =>
      conversation.sandbox_status !== "RUNNING" && conversation.sandbox_status !== "STARTING",
    (last) => `Conversation ${id} is still ${last.execution_status ?? "unknown"}`,
    options,
  );
}
