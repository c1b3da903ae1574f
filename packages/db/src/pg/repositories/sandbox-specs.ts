import { eq } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import type { SandboxSpecRepository } from "../../port/repositories";
import type { PgExecutor } from "../client";
import { sandboxSpecs } from "../schema";

export function createSandboxSpecRepository({ run }: PgExecutor): SandboxSpecRepository {
  return {
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(sandboxSpecs).where(eq(sandboxSpecs.id, id));
        return row;
      }),
    upsert: (spec) =>
      run(async (db) => {
        const { id, createdAt, ...rest } = spec;
        await db
          .insert(sandboxSpecs)
          .values(spec)
          .onConflictDoUpdate({ target: sandboxSpecs.id, set: rest });
      }),
    search: (page) =>
      run(async (db) => {
        const { where, orderBy } = keyset(
          sandboxSpecs.createdAt,
          sandboxSpecs.id,
          "asc",
          page.pageId,
        );
        const rows = await db
          .select()
          .from(sandboxSpecs)
          .where(where)
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return toPage(rows, page.limit, (r) => r.createdAt);
      }),
  };
}
