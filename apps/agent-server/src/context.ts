import type { AgentRunner } from "./agents/runner";
import type { BashService } from "./bash/bash-service";
import type { ConversationStore } from "./conversations/conversation-store";
import type { HttpLimits } from "./env";
import type { KeyChecker } from "./http/auth";
import type { Logger } from "./logger";

/**
 * What the server has from its first instant: enough for the probes, auth and request framing.
 * Nothing here needs zod or the agents, so a server nobody has called yet stays small.
 */
export interface ServerState {
  logger: Logger;
  keys: KeyChecker;
  limits: HttpLimits;
  workspaceDir: string;
  version: string;
  startedAt: number;
  /** Last request or socket message, for server_info's idle_time. */
  lastActivityAt: number;
  ready: boolean;
}

/**
 * What the verbs need, built when the API is first used (see api.ts); tests build their own with
 * real parts through createAgentServer.
 */
export interface AgentServerContext {
  state: ServerState;
  store: ConversationStore;
  runner: AgentRunner;
  bash: BashService;
  keys: KeyChecker;
  logger: Logger;
  workspaceDir: string;
  /** Realpath of the directory the file routes may touch. */
  filesRoot: string;
}

/** API calls and socket messages keep a sandbox busy; probes do not. */
export function markActive(state: ServerState): void {
  state.lastActivityAt = Date.now();
}
