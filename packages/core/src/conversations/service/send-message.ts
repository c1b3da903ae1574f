import type { SandboxRow } from "@sandbox-server/db";
import { agentErrorDetail } from "../../agent-client";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { AppSendMessageResponse } from "../contracts";
import { findOwnedConversation } from "./find-conversation";

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
 */
export async function sendMessage(
  deps: CoreDeps,
  ownerId: string,
  conversationId: string,
  body: string | Buffer,
): Promise<AppSendMessageResponse> {
  const conversation = await findOwnedConversation(deps, ownerId, conversationId);
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
    const sandbox = await readRunningSandbox(deps, sandboxId);
    const response = await forward(
      deps,
      sandbox,
      `/api/conversations/${conversation.id}/events`,
      body,
    );
    if (response.status >= 400) {
      throw new AppError("AGENT_SERVER_REJECTED", agentErrorDetail(response.body), {
        status: response.status,
      });
    }
    deps.activity.set(sandbox.id, deps.now());
    return { success: true, sandbox_status: "RUNNING", message: null };
  } finally {
    deps.forwards.leave(sandboxId);
  }
}

/** The sandbox, when it is RUNNING with an agent server; 404, 409 or 503 otherwise. */
async function readRunningSandbox(deps: CoreDeps, sandboxId: string): Promise<SandboxRow> {
  const sandbox = await deps.repos.sandboxes.get(sandboxId);
  if (!sandbox) {
    throw new AppError("SANDBOX_NOT_FOUND", `Sandbox ${sandboxId} was not found`);
  }
  if (NOT_RUNNING.has(sandbox.status)) {
    throw new AppError(
      "SANDBOX_NOT_RUNNING",
      `Sandbox ${sandbox.id} is ${sandbox.status}; it must be RUNNING. ` +
        (sandbox.status === "PAUSED"
          ? `Resume it with POST /api/v1/sandboxes/${sandbox.id}/resume first.`
          : `Wait until it is RUNNING (POST /api/v1/sandboxes/${sandbox.id}/resume if it is paused).`),
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  if (sandbox.status !== "RUNNING" || !sandbox.agentServerUrl) {
    throw new AppError(
      "SANDBOX_UNAVAILABLE",
      `Sandbox ${sandbox.id} is ${sandbox.status}${sandbox.statusDetail ? `: ${sandbox.statusDetail}` : ""}`,
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  return sandbox;
}

/**
 * Forwards the body. A 503 says whether the message can have arrived: not when the connection was
 * refused; unknown when the agent server took the request and never answered (it records a message
 * and answers in one step, so that means it is stuck — never paused, pause waits for this forward).
 */
async function forward(deps: CoreDeps, sandbox: SandboxRow, path: string, body: string | Buffer) {
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
