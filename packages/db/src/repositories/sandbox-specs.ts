import type { PageRequest } from "../paging";
import type { NewSandboxSpec } from "../port/rows";
import { type Executor, selectById, selectPage } from "../query/query";

export type SandboxSpecRepository = ReturnType<typeof createSandboxSpecRepository>;

export function createSandboxSpecRepository({ read, write }: Executor) {
  return {
    get: (id: string) => read((q) => selectById(q, "specs_by_id", (t) => t.sandboxSpecs, id)),
    /** Inserts or replaces a spec (built-in specs are refreshed at every start). */
    upsert: (spec: NewSandboxSpec) =>
      write(async ({ db, t }) => {
        const { id, createdAt, ...rest } = spec;
        await db
          .insert(t.sandboxSpecs)
          .values(spec)
          .onConflictDoUpdate({ target: t.sandboxSpecs.id, set: rest });
      }),
    search: (page: PageRequest) =>
      read(({ db, t }) => {
        const key = { sort: t.sandboxSpecs.createdAt, direction: "asc" } as const;
        return selectPage(db, t.sandboxSpecs, undefined, key, page);
      }),
  };
}
