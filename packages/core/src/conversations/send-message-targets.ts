import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../deps";

/**
 * How long a remembered row answers for the store. Changes this process makes are seen at once
 * (the lifecycle events below drop the rows); a change made past them (another replica's, a direct
 * write) within this bound, and a forward that fails reads both rows again at once.
 */
export const TARGET_TTL_MS = 1_000;
/** Past this many rows of one kind, all are dropped (a bound, not an eviction policy). */
const MAX_ROWS = 10_000;

interface Remembered<T> {
  row: T;
  until: number;
}

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
 * remember what it read (the drop's generation is newer).
 */
export class SendMessageTargets {
  private readonly conversations = new Map<string, Remembered<ConversationRow>>();
  private readonly sandboxes = new Map<string, Remembered<SandboxRow>>();
  private generation = 0;

  constructor(private readonly deps: CoreDeps) {
    const { events } = deps;
    events.on("sandbox.status_changed", ({ sandbox }) => this.forgetSandbox(sandbox.id));
    events.on("sandbox.deleted", (sandbox) => {
      this.forgetSandbox(sandbox.id);
      // Deleting a sandbox archives its conversations.
      this.drop(() => this.conversations.clear());
    });
    events.on("conversation.deleted", (conversation) =>
      this.drop(() => this.conversations.delete(conversation.id)),
    );
  }

  /** The conversation's row, and whether it came from memory. */
  async conversation(
    id: string,
  ): Promise<{ row: ConversationRow | undefined; remembered: boolean }> {
    const known = this.conversations.get(id);
    if (known && known.until > this.deps.now()) return { row: known.row, remembered: true };
    return { row: await this.readConversation(id), remembered: false };
  }

  /** A fresh read of the conversation (remembered when it is not archived). */
  async readConversation(id: string): Promise<ConversationRow | undefined> {
    const now = this.deps.now();
    const generation = this.generation;
    const row = await this.deps.repos.conversations.get(id);
    if (row && !row.archived && generation === this.generation) {
      remember(this.conversations, id, row, now);
    }
    return row;
  }

  /** The sandbox's row, and whether it came from memory. */
  async sandbox(id: string): Promise<{ row: SandboxRow | undefined; remembered: boolean }> {
    const known = this.sandboxes.get(id);
    if (known && known.until > this.deps.now() && !this.deps.sharedStore) {
      return { row: known.row, remembered: true };
    }
    return { row: await this.readSandbox(id), remembered: false };
  }

  /** A fresh read of the sandbox (remembered when it is RUNNING with an agent server). */
  async readSandbox(id: string): Promise<SandboxRow | undefined> {
    const now = this.deps.now();
    const generation = this.generation;
    const row = await this.deps.repos.sandboxes.get(id);
    if (
      row?.status === "RUNNING" &&
      row.agentServerUrl &&
      !this.deps.sharedStore &&
      generation === this.generation
    ) {
      remember(this.sandboxes, id, row, now);
    }
    return row;
  }

  forgetSandbox(id: string): void {
    this.drop(() => this.sandboxes.delete(id));
  }

  /** After a failed forward: neither row is trusted until read again. */
  forget(conversationId: string, sandboxId: string): void {
    this.drop(() => {
      this.conversations.delete(conversationId);
      this.sandboxes.delete(sandboxId);
    });
  }

  private drop(work: () => void): void {
    this.generation++;
    work();
  }
}

function remember<T>(rows: Map<string, Remembered<T>>, id: string, row: T, now: number): void {
  if (rows.size >= MAX_ROWS) rows.clear();
  rows.set(id, { row, until: now + TARGET_TTL_MS });
}

const targets = new WeakMap<CoreDeps, SendMessageTargets>();

/** The one target cache of a core (created, and subscribed to its events, on first use). */
export function sendMessageTargets(deps: CoreDeps): SendMessageTargets {
  let found = targets.get(deps);
  if (!found) {
    found = new SendMessageTargets(deps);
    targets.set(deps, found);
  }
  return found;
}
