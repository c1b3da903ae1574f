import type { Repositories, SandboxRow } from "@sandbox-server/db";

/** What a sandbox's start tells the caller it starts it for (a conversation's create). */
export interface SandboxLink {
  /**
   * Written in the transaction that makes a sandbox the caller's (a new row, or a warm-pool
   * claim): whatever must never be without it (a conversation's start task names the sandbox
   * it started).
   */
  record(tx: Repositories, sandboxId: string): Promise<void>;
  /**
   * What `record` needs stored first (a conversation's start task), begun when the start has
   * nothing else to do before it: a claim calls it once its key rotation is on its way, a new
   * sandbox before its row. Settled before either records; may be called more than once (the
   * same promise each time).
   */
  prepare?(): Promise<void>;
  /**
   * The sandbox's agent server answers, at the address and under the key given here, and what
   * makes it the caller's running sandbox is being stored (a warm-pool claim, a new sandbox's
   * move to RUNNING): the caller may begin to use it meanwhile. Should that not be stored, what
   * the caller began runs on a sandbox nobody is handed: a pool member whose key nobody holds
   * (which the next claim retires, as after a control plane killed between rotation and claim)
   * or a sandbox whose delete won the race.
   */
  reachable?(sandbox: SandboxRow): void;
}
