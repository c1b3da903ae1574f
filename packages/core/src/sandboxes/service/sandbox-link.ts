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
   * A warm-pool member answers to its new key (given here) and its claim is about to be stored:
   * the caller may begin to use it meanwhile. Nothing of the caller's is recorded on it yet: a
   * claim that then fails leaves a pool member whose key nobody holds, which the next claim
   * retires (as a control plane killed between the rotation and the claim does).
   */
  handedOver?(sandbox: SandboxRow): void;
}
