import { type PollOptions, pollUntil } from "./poll";
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

/**
 * Polls a sandbox until its status is one of `status` and returns it. Fails at once when it is
 * ERROR (unless ERROR is awaited), with a `WaitTimeoutError` after `timeoutMs`, and with the
 * client's error when the sandbox does not exist (or stops existing).
 */
export async function waitForSandboxStatus(
  client: SandboxClient,
  id: string,
  status: SandboxStatus | readonly SandboxStatus[],
  options: PollOptions = {},
): Promise<Sandbox> {
  const wanted: readonly SandboxStatus[] = typeof status === "string" ? [status] : status;
  return pollUntil(
    () => client.sandboxes.get.query({ id }),
    (sandbox) => {
      if (wanted.includes(sandbox.status)) return true;
      if (sandbox.status === "ERROR") throw new SandboxFailedError(sandbox);
      return false;
    },
    (last) => `Sandbox ${id} is ${last?.status ?? "unknown"}, not ${wanted.join(" or ")},`,
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
 * Polls a conversation until its agent is no longer running — after a message sent with
 * `run: true`, until the agent has answered it — and returns the conversation.
 */
export async function waitForConversationSettled(
  client: SandboxClient,
  id: string,
  options: PollOptions = {},
): Promise<AppConversation> {
  return pollUntil(
    () => client.conversations.get.query({ id }),
    (conversation) =>
      conversation.execution_status !== null &&
      settledExecutionStatuses.includes(conversation.execution_status),
    (last) => `Conversation ${id} is still ${last?.execution_status ?? "unknown"}`,
    options,
  );
}
