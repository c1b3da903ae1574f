import { toPageOut } from "../../shared/contracts";
import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { SandboxPage, SearchSandboxesInput, toSandbox } from "../contracts";

export const searchSandboxes = authedProcedure
  .meta(
    rest("GET", "/sandboxes/search", "search_sandboxes", {
      summary: "Search sandboxes",
      description:
        "The caller's sandboxes, newest first, a page at a time (`limit` 1..100, `page_id` from the previous page's `next_page_id`). Filters: `status`, `sandbox_spec_id`, `label` (`key` or `key=value`).",
      tag: "Sandboxes",
    }),
  )
  .input(SearchSandboxesInput)
  .output(SandboxPage)
  .query(async ({ ctx, input }) => {
    const page = await ctx.deps.repos.sandboxes.search(
      {
        ownerId: ctx.user.id,
        status: input.status,
        specId: input.sandbox_spec_id,
        label: input.label,
      },
      { limit: input.limit, pageId: input.page_id },
    );
    return toPageOut(page, (row) => toSandbox(row, ctx.deps));
  });
