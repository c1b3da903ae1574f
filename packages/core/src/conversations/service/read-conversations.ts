import type { ConversationRow, Page, SandboxRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import { type AppConversation, toAppConversation } from "../contracts";
import {
  type ConversationFilterFields,
  type ConversationSortOrder,
  conversationFilter,
  conversationOrder,
} from "../search-contracts";
import type {
  AgentProbeDeps,
  ConversationReadDeps,
  ConversationWaitDeps,
} from "./discover-conversation";
import { discoverConversation } from "./discover-conversation";

/** The agent server's execution_status of a conversation; null when it is slow or unreachable. */
async function liveStatus(
  deps: Pick<CoreDeps, "agents"> & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  row: ConversationRow,
  sandbox: SandboxRow | undefined,
): Promise<string | null> {
  if (sandbox?.status !== "RUNNING" || !sandbox.agentServerUrl) return null;
  try {
    const response = await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
      method: "GET",
      path: `/api/conversations/${row.id}`,
      timeoutMs: deps.config.statusProbeTimeoutMs,
    });
    const status = (response.body as { execution_status?: unknown } | null)?.execution_status;
    return response.status === 200 && typeof status === "string" ? status : null;
  } catch {
    // Unreachable or slow: the field is null rather than the read failing.
    return null;
  }
}

async function withLiveStatus(
  deps: AgentProbeDeps,
  row: ConversationRow,
): Promise<AppConversation> {
  const sandbox = await deps.repos.sandboxes.get(row.sandboxId);
  return toAppConversation(row, sandbox, await liveStatus(deps, row, sandbox));
}

/**
 * The caller's conversation by id; one the store does not know yet may be on one of the caller's
 * agent servers (created there directly) and is registered then.
 */
async function findOrDiscover(
  deps: ConversationReadDeps,
  ownerId: string,
  id: string,
): Promise<ConversationRow | undefined> {
  const row =
    (await deps.repos.conversations.get(id)) ?? (await discoverConversation(deps, ownerId, id));
  return row?.ownerId === ownerId ? row : undefined;
}

/** One conversation with its live execution_status (null, not an error, when it is slow). */
export async function getConversation(
  deps: ConversationWaitDeps,
  ownerId: string,
  id: string,
): Promise<AppConversation> {
  const row = await findOrDiscover(deps, ownerId, id);
  if (!row) throw new AppError("CONVERSATION_NOT_FOUND", `Conversation ${id} was not found`);
  return withLiveStatus(deps, row);
}

/**
 * Conversations by id, aligned with `ids`: null where one is unknown or another user's. Each is
 * read as `getConversation` reads it (live execution_status), all at once.
 */
export function batchGetConversations(
  deps: ConversationReadDeps,
  ownerId: string,
  ids: string[],
): Promise<(AppConversation | null)[]> {
  return Promise.all(
    ids.map(async (id) => {
      const row = await findOrDiscover(deps, ownerId, id);
      return row ? withLiveStatus(deps, row) : null;
    }),
  );
}

export interface ConversationSearch extends ConversationFilterFields {
  limit: number;
  page_id?: string | undefined;
  sort_order: ConversationSortOrder;
}

/** A page of the caller's conversations; execution_status is the last one seen (no live calls). */
export async function searchConversations(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  input: ConversationSearch,
): Promise<Page<AppConversation>> {
  const { sort, direction } = conversationOrder(input.sort_order);
  const page = await deps.repos.conversations.search(
    conversationFilter(ownerId, input),
    sort,
    direction,
    { limit: input.limit, pageId: input.page_id },
  );
  const sandboxes = new Map<string, SandboxRow | undefined>();
  for (const id of new Set(page.items.map((row) => row.sandboxId))) {
    sandboxes.set(id, await deps.repos.sandboxes.get(id));
  }
  return {
    items: page.items.map((row) => toAppConversation(row, sandboxes.get(row.sandboxId))),
    nextPageId: page.nextPageId,
  };
}

export function countConversations(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  input: ConversationFilterFields,
): Promise<number> {
  return deps.repos.conversations.count(conversationFilter(ownerId, input));
}
