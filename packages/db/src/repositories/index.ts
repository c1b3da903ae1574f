import type { Db } from "../client";
import { createConversationRepository } from "./conversations";
import { createSandboxSpecRepository } from "./sandbox-specs";
import { createSandboxRepository } from "./sandboxes";
import { createUserRepository } from "./users";

export * from "./conversations";
export * from "./sandbox-specs";
export * from "./sandboxes";
export * from "./users";

export function createRepositories(db: Db) {
  return {
    users: createUserRepository(db),
    specs: createSandboxSpecRepository(db),
    sandboxes: createSandboxRepository(db),
    conversations: createConversationRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;
