import type { Repositories } from "@sandbox-server/db";

/**
 * Written in the transaction that makes a sandbox the caller's (a new row, or a warm-pool claim):
 * whatever must never be without it (a conversation's start task names the sandbox it started).
 */
export type SandboxLink = (tx: Repositories, sandboxId: string) => Promise<void>;
