import type { Page, SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { type AppConversation, type ListConversationsInput, toAppConversation } from "../contracts";
import { findOwnedConversation } from "./find-conversation";

/** One conversation with its live execution_status (null, not an error, when it is slow). */
export async function getConversation(
  deps: CoreDeps,
  ownerId: string,
  id: string,
): Promise<AppConversation> {
  const row = await findOwnedConversation(deps, ownerId, id);
  const sandbox = await deps.repos.sandboxes.get(row.sandboxId);
  let live: string | null = null;
  if (sandbox?.status === "RUNNING" && sandbox.agentServerUrl) {
    try {
      const response = await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
        method: "GET",
        path: `/api/conversations/${row.id}`,
        timeoutMs: deps.config.statusProbeTimeoutMs,
      });
      const status = (response.body as { execution_status?: unknown } | null)?.execution_status;
      if (response.status === 200 && typeof status === "string") live = status;
    } catch {
      // Unreachable or slow: the field is null rather than the read failing.
    }
  }
  return toAppConversation(row, sandbox, live);
}

/** A page of the caller's conversations; execution_status is the last one seen (no live calls). */
export async function listConversations(
  deps: CoreDeps,
  ownerId: string,
  input: ListConversationsInput,
): Promise<Page<AppConversation>> {
  const sort = input.sort_order.startsWith("CREATED") ? "created" : "updated";
  const direction = input.sort_order.endsWith("_DESC") ? "desc" : "asc";
  const page = await deps.repos.conversations.search(
    {
      ownerId,
      sandboxId: input.sandbox_id,
      archived: input.archived,
      titleContains: input.title__contains,
    },
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
