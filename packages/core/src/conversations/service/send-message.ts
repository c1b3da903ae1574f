import type { SandboxRow } from "@sandbox-server/db";
import { agentErrorDetail } from "../../agent-client";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { SendMessageTargets } from "../../state/send-message-targets";
import type { AppSendMessageResponse } from "../contracts";

const NOT_RUNNING = new Set(["PAUSED", "STARTING", "STOPPING"]);

/** Failures in which the request never reached the agent server. */
const NOT_SENT = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENOTFOUND", "EHOSTUNREACH"]);

/**
 * The thin proxy (specification §4): checks where the conversation's sandbox stands, then
 * forwards the caller's body, byte for byte, to the agent server. No defaults, no rewriting,
 * no database writes.
 *
 * Ordered with pause and delete (ForwardGate): the forward is admitted before the sandbox's status
 * is read, so a pause or delete either waits for it or has already refused it (409) — no agent
 * server is frozen with this message in flight, and a 409 means it was never sent.
 *
 * The conversation and sandbox rows may come from memory (`SendMessageTargets`), but only a
 * success is decided on remembered rows: a refusal found on one, or a forward to a remembered
 * agent server that did not leave (refused connection) or that does not know the conversation
 * (404), is decided again on fresh reads — so the answer is the one the store's state gives, in
 * the specification's order (404 → 410 → 404 → 409 → 503). A forward whose delivery is unknown is
 * never repeated.
 */
export async function sendMessage(
  deps: Pick<CoreDeps, "activity" | "agents" | "forwards" | "metrics" | "now" | "sendTargets">,
  ownerId: string,
  conversationId: string,
  body: string | Buffer,
): Promise<AppSendMessageResponse> {
  const targets = deps.sendTargets;
  try {
    return await sendOnce(deps, targets, true, ownerId, conversationId, body);
  } catch (error) {
    if (!(error instanceof DecidedFromMemory)) throw error;
    targets.forget(conversationId, error.sandboxId);
    return await sendOnce(deps, targets, false, ownerId, conversationId, body);
  }
}

/** A refusal reached on remembered rows: to be decided again on fresh ones. */
class DecidedFromMemory extends Error {
  constructor(readonly sandboxId: string) {
    super("decided on remembered rows");
  }
}

async function sendOnce(
  deps: Pick<CoreDeps, "activity" | "agents" | "forwards" | "now">,
  targets: SendMessageTargets,
  fromMemory: boolean,
  ownerId: string,
  conversationId: string,
  body: string | Buffer,
): Promise<AppSendMessageResponse> {
  const read = fromMemory
    ? await targets.conversation(conversationId)
    : { row: await targets.readConversation(conversationId), remembered: false };
  const conversation = read.row;
  let remembered = read.remembered;
  // Refusals found on a remembered row are decided again on fresh ones.
  const refuse = (sandboxId: string, error: AppError) =>
    remembered ? new DecidedFromMemory(sandboxId) : error;
  if (!conversation || conversation.ownerId !== ownerId) {
    // Another user's conversation is indistinguishable from a missing one.
    throw new AppError("CONVERSATION_NOT_FOUND", `Conversation ${conversationId} was not found`);
  }
  if (conversation.archived) {
    throw new AppError(
      "CONVERSATION_ARCHIVED",
      `Conversation ${conversationId} is archived: its sandbox no longer exists`,
    );
  }
  const sandboxId = conversation.sandboxId;
  const closedFor = deps.forwards.enter(sandboxId);
  if (closedFor !== null) {
    throw new AppError(
      "SANDBOX_NOT_RUNNING",
      `Sandbox ${sandboxId} is ${closedFor}; the message was not sent. ` +
        (closedFor === "pausing"
          ? `Resume it with POST /api/v1/sandboxes/${sandboxId}/resume once it is PAUSED.`
          : "It will not run again."),
      { details: { sandbox_id: sandboxId, sandbox_status: "RUNNING", pending: closedFor } },
    );
  }
  try {
    const found = fromMemory
      ? await targets.sandbox(sandboxId)
      : { row: await targets.readSandbox(sandboxId), remembered: false };
    remembered ||= found.remembered;
    const refusal = refusalFor(sandboxId, found.row);
    if (refusal) throw refuse(sandboxId, refusal);
    const sandbox = found.row as SandboxRow;
    const response = await forward(
      deps,
      sandbox,
      `/api/conversations/${conversation.id}/events`,
      body,
    ).catch((error: unknown) => {
      targets.forget(conversation.id, sandboxId);
      // Not sent to a remembered agent server (it may have moved): decided again, fresh.
      if (found.remembered && notDelivered(error)) throw new DecidedFromMemory(sandboxId);
      throw error;
    });
    if (response.status >= 400) {
      const rejected = new AppError("AGENT_SERVER_REJECTED", agentErrorDetail(response.body), {
        status: response.status,
      });
      // The agent server does not know the conversation: a remembered one may be gone here too.
      throw response.status === 404 ? refuse(sandboxId, rejected) : rejected;
    }
    deps.activity.set(sandbox.id, deps.now());
    return { success: true, sandbox_status: "RUNNING", message: null };
  } finally {
    deps.forwards.leave(sandboxId);
  }
}

/** Why a message cannot go to this sandbox (404, 409 or 503), or null when it is RUNNING. */
function refusalFor(sandboxId: string, sandbox: SandboxRow | undefined): AppError | null {
  if (!sandbox) {
    return new AppError("SANDBOX_NOT_FOUND", `Sandbox ${sandboxId} was not found`);
  }
  if (NOT_RUNNING.has(sandbox.status)) {
    return new AppError(
      "SANDBOX_NOT_RUNNING",
      `Sandbox ${sandbox.id} is ${sandbox.status}; it must be RUNNING. ` +
        (sandbox.status === "PAUSED"
          ? `Resume it with POST /api/v1/sandboxes/${sandbox.id}/resume first.`
          : `Wait until it is RUNNING (POST /api/v1/sandboxes/${sandbox.id}/resume if it is paused).`),
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  if (sandbox.status !== "RUNNING" || !sandbox.agentServerUrl) {
    return new AppError(
      "SANDBOX_UNAVAILABLE",
      `Sandbox ${sandbox.id} is ${sandbox.status}${sandbox.statusDetail ? `: ${sandbox.statusDetail}` : ""}`,
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  return null;
}

/** A forward's 503 that says the message did not leave. */
function notDelivered(error: unknown): boolean {
  return (
    error instanceof AppError &&
    (error.details as { delivered?: string } | undefined)?.delivered === "no"
  );
}

/**
 * Forwards the body. A 503 says whether the message can have arrived: not when the connection was
 * refused; unknown when the agent server took the request and never answered (it records a message
 * and answers in one step, so that means it is stuck — never paused, pause waits for this forward).
 */
async function forward(
  deps: Pick<CoreDeps, "agents">,
  sandbox: SandboxRow,
  path: string,
  body: string | Buffer,
) {
  try {
    return await deps.agents.request(sandbox.agentServerUrl ?? "", sandbox.sessionApiKey, {
      method: "POST",
      path,
      body,
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const code = (error.cause as { code?: string } | undefined)?.code ?? "";
    const delivered = NOT_SENT.has(code) ? "no" : "unknown";
    throw new AppError(
      "SANDBOX_UNAVAILABLE",
      delivered === "no"
        ? `${error.message}; the message was not delivered`
        : `${error.message}; whether the message arrived is unknown: read the conversation's events before sending it again`,
      {
        details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status, delivered },
        cause: error,
      },
    );
  }
}
