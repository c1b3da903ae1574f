import {
  type ConversationInfo,
  type ConversationPage,
  ConversationSortOrder,
  ExecutionStatus,
} from "@sandbox-server/agent-contracts";
import { z } from "zod";
import type { AgentServerContext } from "../context";
import { firstValues, PageQuery, paginate } from "../http/paging";
import { validate } from "../http/validate";
import { toPublicInfo } from "./conversation-view";

// `execution_status` is upstream's name for the filter, `status` ours; both are accepted.
const StatusFilter = z.object({
  status: ExecutionStatus.optional(),
  execution_status: ExecutionStatus.optional(),
});

const SearchQuery = PageQuery.extend({
  sort_order: ConversationSortOrder.default("CREATED_AT_DESC"),
}).and(StatusFilter);

const BatchQuery = z.object({
  ids: z.array(z.guid()).min(1).max(100),
});

type Sortable = Readonly<ConversationInfo>;

export function searchConversations(
  ctx: AgentServerContext,
  rawQuery: Record<string, unknown>,
): ConversationPage {
  const query = validate(SearchQuery, firstValues(rawQuery), "query");
  const status = query.status ?? query.execution_status;
  const ordered = ctx.store
    .all()
    .map((conversation) => conversation.info)
    .sort(compareBy(query.sort_order));
  const page = paginate(ordered, query, (info) => !status || info.execution_status === status);
  return { items: page.items.map(toPublicInfo), next_page_id: page.next_page_id };
}

export function countConversations(
  ctx: AgentServerContext,
  rawQuery: Record<string, unknown>,
): number {
  const query = validate(StatusFilter, firstValues(rawQuery), "query");
  const status = query.status ?? query.execution_status;
  return ctx.store.all().filter((c) => !status || c.status === status).length;
}

/** In request order, null for ids that are unknown. */
export function getConversations(
  ctx: AgentServerContext,
  rawQuery: Record<string, unknown>,
): (ConversationInfo | null)[] {
  const ids = rawQuery.ids === undefined ? [] : [rawQuery.ids].flat();
  const query = validate(BatchQuery, { ids }, "query");
  return query.ids.map((id) => {
    const conversation = ctx.store.get(id.toLowerCase());
    return conversation ? toPublicInfo(conversation.info) : null;
  });
}

function compareBy(order: ConversationSortOrder): (a: Sortable, b: Sortable) => number {
  const field = order.startsWith("UPDATED_AT") ? "updated_at" : "created_at";
  const direction = order.endsWith("_DESC") ? -1 : 1;
  // Timestamps share one fixed-width format, so string order is time order; ids break ties.
  return (a, b) => direction * (compareText(a[field], b[field]) || compareText(a.id, b.id));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
