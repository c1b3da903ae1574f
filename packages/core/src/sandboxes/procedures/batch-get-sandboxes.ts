import { rest } from "../../shared/rest";
import { authedProcedure } from "../../trpc";
import { BatchSandboxesInput, SandboxBatch, toSandbox } from "../contracts";

export const batchGetSandboxes = authedProcedure
  .meta(
    rest("GET", "/sandboxes", "batch_get_sandboxes", {
      summary: "Read sandboxes by id",
      description:
        "An array aligned with `id` (`id=a&id=b`, 1 to 100 ids), null where a sandbox is unknown or not yours. Without `id`: 422 (list with `GET /sandboxes/search`).",
      tag: "Sandboxes",
    }),
  )
  .input(BatchSandboxesInput)
  .output(SandboxBatch)
  .query(async ({ ctx, input }) => {
    const rows = await Promise.all(input.id.map((id) => ctx.deps.repos.sandboxes.get(id)));
    return rows.map((row) =>
      row && row.ownerId === ctx.user.id ? toSandbox(row, ctx.deps) : null,
    );
  });
