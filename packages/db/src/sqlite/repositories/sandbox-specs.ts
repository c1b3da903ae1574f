import { eq } from "drizzle-orm";
import { keyset, type Page, type PageRequest, toPage } from "../../paging";
import type { SandboxSpecRow } from "../../port/rows";
import { sandboxSpecs } from "../../schema";
import type { Db } from "../client";

export function createSandboxSpecRepository(db: Db) {
  return {
    get(id: string): SandboxSpecRow | undefined {
      return db.select().from(sandboxSpecs).where(eq(sandboxSpecs.id, id)).get();
    },
    /** Inserts or replaces a spec (built-in specs are refreshed at every start). */
    upsert(spec: SandboxSpecRow): void {
      const { id, createdAt, ...rest } = spec;
      db.insert(sandboxSpecs)
        .values(spec)
        .onConflictDoUpdate({ target: sandboxSpecs.id, set: rest })
        .run();
    },
    search(page: PageRequest): Page<SandboxSpecRow> {
      const { where, orderBy } = keyset(
        sandboxSpecs.createdAt,
        sandboxSpecs.id,
        "asc",
        page.pageId,
      );
      const rows = db
        .select()
        .from(sandboxSpecs)
        .where(where)
        .orderBy(...orderBy)
        .limit(page.limit + 1)
        .all();
      return toPage(rows, page.limit, (r) => r.createdAt);
    },
  };
}
