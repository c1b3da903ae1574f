import type { ConversationFilter, ConversationSort, SortDirection } from "@sandbox-server/db";
import { z } from "zod";
import { pageInput, pageOf, QueryBoolean } from "../shared/contracts";
import { microsToMillisCeil, QueryDateTime } from "../shared/query-time";
import { AppConversation } from "./contracts";
import { ConversationIds } from "./conversation-id";

export const AppConversationPage = pageOf(AppConversation, "AppConversationPage");

export const ConversationSortOrder = z
  .enum(["CREATED_AT", "CREATED_AT_DESC", "UPDATED_AT", "UPDATED_AT_DESC", "TITLE", "TITLE_DESC"])
  .default("CREATED_AT_DESC");
export type ConversationSortOrder = z.infer<typeof ConversationSortOrder>;

const SandboxIdFilter = z.string().min(1).max(64);

/** Filters of the list, search and count: ours and OpenHands' names side by side. */
const filterFields = {
  sandbox_id: SandboxIdFilter.optional(),
  sandbox_id__eq: SandboxIdFilter.optional().describe("Same as sandbox_id (OpenHands' name)"),
  archived: QueryBoolean.optional(),
  title__contains: z.string().min(1).max(200).optional(),
  created_at__gte: QueryDateTime.optional(),
  created_at__lt: QueryDateTime.optional(),
  updated_at__gte: QueryDateTime.optional(),
  updated_at__lt: QueryDateTime.optional(),
  include_sub_conversations: QueryBoolean.optional().describe(
    "Include conversations started with a parent_conversation_id (default false)",
  ),
};

export type ConversationFilterFields = z.infer<z.ZodObject<typeof filterFields>>;
type FilterFields = ConversationFilterFields;

function sameSandbox(input: FilterFields, ctx: z.RefinementCtx) {
  if (input.sandbox_id && input.sandbox_id__eq && input.sandbox_id !== input.sandbox_id__eq) {
    ctx.addIssue({
      code: "custom",
      path: ["sandbox_id__eq"],
      message: "sandbox_id and sandbox_id__eq differ",
    });
  }
}

export const CountConversationsInput = z.object(filterFields).superRefine(sameSandbox);

export const SearchConversationsInput = z
  .object({ ...filterFields, ...pageInput, sort_order: ConversationSortOrder })
  .superRefine(sameSandbox);
export type SearchConversationsInput = z.infer<typeof SearchConversationsInput>;

export const ListConversationsInput = z
  .object({
    ...filterFields,
    ...pageInput,
    sort_order: ConversationSortOrder,
    ids: ConversationIds.optional().describe(
      "Batch read (repeat the key: ids=a&ids=b): the answer is then an array aligned with ids, " +
        "null where a conversation is unknown or not yours; the other parameters are ignored",
    ),
  })
  .superRefine(sameSandbox);
export type ListConversationsInput = z.infer<typeof ListConversationsInput>;

export const ConversationBatch = z
  .array(AppConversation.nullable())
  .meta({ id: "AppConversationBatch" });

export const ListConversationsOutput = z.union([AppConversationPage, ConversationBatch]);

/** The store's filter for the caller's conversations. */
export function conversationFilter(ownerId: string, input: FilterFields): ConversationFilter {
  const millis = (micros: number | undefined) =>
    micros === undefined ? undefined : microsToMillisCeil(micros);
  return {
    ownerId,
    sandboxId: input.sandbox_id ?? input.sandbox_id__eq,
    archived: input.archived,
    titleContains: input.title__contains,
    createdFrom: millis(input.created_at__gte),
    createdBefore: millis(input.created_at__lt),
    updatedFrom: millis(input.updated_at__gte),
    updatedBefore: millis(input.updated_at__lt),
    includeSubConversations: input.include_sub_conversations ?? false,
  };
}

export function conversationOrder(sortOrder: ConversationSortOrder): {
  sort: ConversationSort;
  direction: SortDirection;
} {
  const sort = sortOrder.startsWith("CREATED")
    ? "created"
    : sortOrder.startsWith("UPDATED")
      ? "updated"
      : "title";
  return { sort, direction: sortOrder.endsWith("_DESC") ? "desc" : "asc" };
}
