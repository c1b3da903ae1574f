import { toPageOut } from "../shared/contracts";
import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { SandboxSpecPage, SearchSandboxSpecsInput, toSandboxSpec } from "./contracts";

export const searchSandboxSpecs = authedProcedure
  .meta(
    rest("GET", "/sandbox-specs/search", "search_sandbox_specs", {
      summary: "List sandbox specs",
      description:
        "The templates a sandbox can be started from, the built-in `default` spec among them, a page at a time; each states its runtime's `isolation`.",
      tag: "Sandbox specs",
    }),
  )
  .input(SearchSandboxSpecsInput)
  .output(SandboxSpecPage)
  .query(async ({ ctx, input }) => {
    const page = await ctx.deps.repos.specs.search({ limit: input.limit, pageId: input.page_id });
    return toPageOut(page, (row) => toSandboxSpec(row, ctx.deps.runtime));
  });
