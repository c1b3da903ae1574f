import { z } from "zod";
import { AppError } from "../errors";

/** Paging query shared by every search route: `page_id` is the id of the page's first item. */
export const PageQuery = z.object({
  page_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
export type PageQuery = z.infer<typeof PageQuery>;

export interface Page<T> {
  items: T[];
  next_page_id: string | null;
}

/**
 * Pages through `ordered` (already sorted). The page start is found among all items, before
 * filtering, so a page_id stays valid when its item stopped matching the filter meanwhile.
 */
export function paginate<T extends { id: string }>(
  ordered: readonly T[],
  query: PageQuery,
  matches: (item: T) => boolean,
): Page<T> {
  let start = 0;
  if (query.page_id !== undefined) {
    start = ordered.findIndex((item) => item.id === query.page_id);
    if (start < 0) throw new AppError("BAD_REQUEST", "Unknown page_id");
  }
  const items: T[] = [];
  for (let i = start; i < ordered.length; i++) {
    const item = ordered[i] as T;
    if (!matches(item)) continue;
    if (items.length === query.limit) return { items, next_page_id: item.id };
    items.push(item);
  }
  return { items, next_page_id: null };
}

/** Express's query parser gives a string, a list, or nothing; search routes take the first. */
export function firstValues(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(query).map(([key, value]) => [key, Array.isArray(value) ? value[0] : value]),
  );
}
