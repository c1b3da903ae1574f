import { eq } from "drizzle-orm";
import type { Page, PageRequest } from "../../paging";
import type { NewSandboxSpec, SandboxSpecRow } from "../../port/rows";
import { sandboxSpecs } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";

export function createSandboxSpecRepository(db: Db) {
  return {
    get(id: string): SandboxSpecRow | undefined {
      return db.select().from(sandboxSpecs).where(eq(sandboxSpecs.id, id)).get();
    },
    /** Inserts or replaces a spec (built-in specs are refreshed at every start). */
    upsert(spec: NewSandboxSpec): void {
      const { id, createdAt, ...rest } = spec;
      db.insert(sandboxSpecs)
        .values(spec)
        .onConflictDoUpdate({ target: sandboxSpecs.id, set: rest })
        .run();
    },
    search(page: PageRequest): Page<SandboxSpecRow> {
      const key = {
        sort: sandboxSpecs.createdAt,
        id: sandboxSpecs.id,
        direction: "asc",
        value: (r: SandboxSpecRow) => r.createdAt,
      } as const;
      return selectPage(db, sandboxSpecs, undefined, key, page);
    },
  };
}
