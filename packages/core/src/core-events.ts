import { EventEmitter } from "node:events";
import type { ConversationRow, SandboxRow } from "@sandbox-server/db";

export interface SandboxStatusChange {
  sandbox: SandboxRow;
  previousStatus: string | null;
}

export interface CoreEventMap {
  "sandbox.status_changed": [SandboxStatusChange];
  "sandbox.deleted": [SandboxRow];
  /** A conversation exists on its agent server and in the store: follow its events from now. */
  "conversation.created": [ConversationRow];
  /** Events of the conversation (id) were stored: its record (execution_status) may have moved. */
  "conversation.activity": [string];
  /** A conversation's record is gone (DELETE): stop following it. */
  "conversation.deleted": [ConversationRow];
  /** The runtime refused a sandbox's connection (throttled): its owner's webhooks hear of it. */
  "sandbox.egress_denied": [Pick<SandboxRow, "id" | "ownerId">, Record<string, unknown>];
  /** Outbox rows were committed: the delivery worker should look for work. */
  "webhooks.queued": [];
}

export function createEvents(): EventEmitter<CoreEventMap> {
  const events = new EventEmitter<CoreEventMap>();
  events.setMaxListeners(0);
  return events;
}
