import type * as schema from "../schema";

/* What a row has for the columns its insert may leave out (typed by the tables, not by ./rows). */

/**
 * No lifetime policy, no active time counted yet: what a sandbox row has unless told otherwise.
 * Its keys are the lifetime columns (`SandboxLifetimeFields`).
 */
export const NO_LIFETIME = {
  activeLimitMs: null,
  onTimeout: null,
  idlePauseAfterMs: null,
  deletePausedAfterMs: null,
  activeMs: 0,
  runningSince: null,
  pausedAt: null,
  lifetimeDueAt: null,
} satisfies Partial<typeof schema.sandboxes.$inferSelect>;

/** What a conversation stored without the OpenHands fields has for them. */
export const CLIENT_FIELD_DEFAULTS = {
  parentConversationId: null,
  public: null,
  selectedRepository: null,
  selectedBranch: null,
  gitProvider: null,
  trigger: null,
  llmModel: null,
  prNumber: [],
} satisfies Partial<typeof schema.conversations.$inferSelect>;
