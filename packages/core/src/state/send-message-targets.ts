import type { EventEmitter } from "node:events";
import type { ConversationRow, Repositories, SandboxRow } from "@sandbox-server/db";
import type { CoreEventMap } from "../core-events";
import { RememberedReads } from "../shared/remembered-reads";

/**
 * How long a remembered row answers for the store. Changes this process makes are seen at once
 * (the lifecycle events below drop the rows); a change made past them (another replica's, a direct
 * write) within this bound, and a forward that fails reads both rows again at once.
 */
export const TARGET_TTL_MS = 1_000;

/**
 * The two reads send-message makes before it forwards — the conversation and its sandbox —
 * remembered for TARGET_TTL_MS, so a stream of messages to one conversation costs no store read
 * per message. Only rows that let a message through are remembered: a conversation that is not
 * archived and a sandbox that is RUNNING with an agent server. Every other answer (404, 409, 410,
 * 503) comes from a fresh read, so the specification's order of checks is applied to the store's
 * state exactly as without the cache.
 *
 * The sandbox's row is remembered only while this process is the store's one user
 * (`deps.sharedStore` false). With replicas sharing the store, a pause on another replica must
 * answer 409 at once, so every forward reads the sandbox fresh; the conversation's row (its owner
 * and sandbox never change; archived only when its sandbox is deleted, which a forward to it then
 * finds out) is remembered there too.
 *
 * Dropped at once: a sandbox on any status move, claim or deletion (its conversations too, which
 * deletion archives), a conversation on its deletion. A pause or delete in this process closes
 * the sandbox's forward gate before it moves, so no forward reads a row it is about to change; the
 * move's event drops the row before the gate opens again. A read that began before a drop does not
 * remember what it read (`RememberedReads`).
 */
export interface SendMessageTargetsDeps {
  repos: Pick<Repositories, "conversations" | "sandboxes">;
  now: () => number;
  /** The core's events: moves and deletions drop remembered rows. */
  events: EventEmitter<CoreEventMap>;
  /** Whether other replicas share the store (then sandboxes are always read fresh). */
  sharedStore: boolean;
}

export class SendMessageTargets {
  private readonly conversations: RememberedReads<ConversationRow>;
  private readonly sandboxes: RememberedReads<SandboxRow>;

  constructor(private readonly deps: SendMessageTargetsDeps) {
    const remembered = { ttlMs: TARGET_TTL_MS, now: () => deps.now() };
    this.conversations = new RememberedReads(remembered);
    this.sandboxes = new RememberedReads(remembered);
    const { events } = deps;
    events.on("sandbox.status_changed", ({ sandbox }) => this.forgetSandbox(sandbox.id));
    events.on("sandbox.deleted", (sandbox) => {
      this.forgetSandbox(sandbox.id);
      // Deleting a sandbox archives its conversations.
      this.conversations.clear();
    });
    events.on("conversation.deleted", (conversation) => this.conversations.forget(conversation.id));
  }

  /** The conversation's row, and whether it came from memory. */
  async conversation(
    id: string,
  ): Promise<{ row: ConversationRow | undefined; remembered: boolean }> {
    const known = this.conversations.get(id);
    if (known) return { row: known, remembered: true };
    return { row: await this.readConversation(id), remembered: false };
  }

  /** A fresh read of the conversation (remembered when it is not archived). */
  readConversation(id: string): Promise<ConversationRow | undefined> {
    return this.conversations.read(
      id,
      () => this.deps.repos.conversations.get(id),
      (row) => !row.archived,
    );
  }

  /** The sandbox's row, and whether it came from memory. */
  async sandbox(id: string): Promise<{ row: SandboxRow | undefined; remembered: boolean }> {
    const known = this.deps.sharedStore ? undefined : this.sandboxes.get(id);
    if (known) return { row: known, remembered: true };
    return { row: await this.readSandbox(id), remembered: false };
  }

  /** A fresh read of the sandbox (remembered when it is RUNNING with an agent server). */
  readSandbox(id: string): Promise<SandboxRow | undefined> {
    return this.sandboxes.read(
      id,
      () => this.deps.repos.sandboxes.get(id),
      (row) => row.status === "RUNNING" && Boolean(row.agentServerUrl) && !this.deps.sharedStore,
    );
  }

  forgetSandbox(id: string): void {
    this.sandboxes.forget(id);
  }

  /** After a failed forward: neither row is trusted until read again. */
  forget(conversationId: string, sandboxId: string): void {
    this.conversations.forget(conversationId);
    this.sandboxes.forget(sandboxId);
  }
}
