import type { EventEmitter } from "node:events";
import type { ConversationRow, SandboxRow, StoreNotices } from "@sandbox-server/db";
import type { CoreEventMap, SandboxStatusChange } from "../../core-events";
import { describeError } from "../../describe-error";
import type { Logger } from "../../logger";

/** The channel on which replicas name the sandboxes whose following may have changed. */
export const FOLLOW_NOTICE_CHANNEL = "sandbox_server_follow";

interface NoticeDeps {
  notices: StoreNotices;
  replicaId: string;
  log: Logger;
}

/**
 * Tells the other replicas of each local move that changes what the duties' holder follows (a
 * sandbox's status, its deletion, a new conversation), so that the holder looks at that one
 * sandbox instead of scanning them all. Notices are best effort: the holder still scans now and
 * then, and at once when its listener reports a gap. Returns the function that stops.
 */
export function announceFollowChanges(
  events: EventEmitter<CoreEventMap>,
  deps: NoticeDeps,
): () => void {
  const announce = (sandboxId: string) => {
    deps.notices
      .publish(FOLLOW_NOTICE_CHANNEL, `${deps.replicaId} ${sandboxId}`)
      .catch((error: unknown) => {
        deps.log.warn(
          { sandboxId, reason: describeError(error).message },
          "other replicas not told of a sandbox's move: the duties' holder finds it on its next scan",
        );
      });
  };
  const onStatus = ({ sandbox }: SandboxStatusChange) => announce(sandbox.id);
  const onDeleted = (sandbox: SandboxRow) => announce(sandbox.id);
  const onCreated = (conversation: ConversationRow) => announce(conversation.sandboxId);
  events.on("sandbox.status_changed", onStatus);
  events.on("sandbox.deleted", onDeleted);
  events.on("conversation.created", onCreated);
  return () => {
    events.off("sandbox.status_changed", onStatus);
    events.off("sandbox.deleted", onDeleted);
    events.off("conversation.created", onCreated);
  };
}

/**
 * Calls `onSandbox` with each sandbox another replica announced (this replica's own moves arrive
 * as in-process events already), and `onGap` when notices may have been missed. Resolves with
 * the function that stops listening, or null when listening could not start (the scan remains).
 */
export async function listenForFollowChanges(
  deps: NoticeDeps,
  onSandbox: (sandboxId: string) => void,
  onGap: () => void,
): Promise<(() => Promise<void>) | null> {
  const onNotice = (payload: string) => {
    const [origin, sandboxId] = payload.split(" ");
    if (origin !== deps.replicaId && sandboxId) onSandbox(sandboxId);
  };
  try {
    return await deps.notices.listen(FOLLOW_NOTICE_CHANNEL, onNotice, onGap);
  } catch (error) {
    deps.log.warn(
      { reason: describeError(error).message },
      "not listening for other replicas' sandbox moves: they are found by the periodic scan",
    );
    return null;
  }
}
