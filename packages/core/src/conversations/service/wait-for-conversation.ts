import type { SandboxStatusChange } from "../../core-events";
import { sharedStorePollMs, waitUntil } from "../../shared/wait-until";
import type { AppConversation } from "../contracts";
import type { ConversationWaitDeps } from "./discover-conversation";
import { getConversation } from "./read-conversations";
import { storeCaughtUp } from "./store-caught-up";

/** `wait_for=settled`: any execution status in which the agent waits for the next message. */
export const settledStatuses = [
  "idle",
  "finished",
  "paused",
  "waiting_for_confirmation",
  "error",
  "stuck",
] as const;

function reached(conversation: AppConversation, waitFor: string): boolean {
  const status = conversation.execution_status;
  if (waitFor === "settled") return settledStatuses.some((s) => s === status);
  return status === waitFor;
}

/**
 * The caller's conversation once its `execution_status` is `waitFor` (or any settled one) and every
 * event up to that state is stored here, once it cannot change by itself (its sandbox is neither
 * RUNNING nor STARTING), or after `timeoutMs`. Woken when the follower stores an event of the
 * conversation or its sandbox changes status; each wake reads the conversation as GET does (live
 * status from its agent server).
 */
export function waitForConversation(
  deps: ConversationWaitDeps,
  ownerId: string,
  id: string,
  waitFor: string,
  timeoutMs: number,
): Promise<AppConversation> {
  let sandboxId: string | null = null;
  let caughtUp = false;
  return waitUntil({
    ...sharedStorePollMs(deps),
    read: async () => {
      const conversation = await getConversation(deps, ownerId, id);
      sandboxId = conversation.sandbox_id;
      caughtUp = false;
      if (conversation.sandbox_status === "RUNNING" && reached(conversation, waitFor)) {
        const sandbox = await deps.repos.sandboxes.get(conversation.sandbox_id);
        caughtUp = !sandbox || (await storeCaughtUp(deps, sandbox, id));
      }
      return conversation;
    },
    done: (conversation) =>
      (reached(conversation, waitFor) && caughtUp) ||
      (conversation.sandbox_status !== "RUNNING" && conversation.sandbox_status !== "STARTING"),
    subscribe: (wake) => {
      const onActivity = (conversationId: string) => {
        if (conversationId === id) wake();
      };
      const onSandbox = (change: SandboxStatusChange) => {
        if (change.sandbox.id === sandboxId) wake();
      };
      deps.events.on("conversation.activity", onActivity);
      deps.events.on("sandbox.status_changed", onSandbox);
      return () => {
        deps.events.off("conversation.activity", onActivity);
        deps.events.off("sandbox.status_changed", onSandbox);
      };
    },
    timeoutMs,
  });
}
