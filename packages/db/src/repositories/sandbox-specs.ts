import { eq } from "drizzle-orm";
import type { SandboxSpecRepository } from "../port/repositories";
import { type Executor, selectPage } from "../query/query";

export function createSandboxSpecRepository({ read, write }: Executor): SandboxSpecRepository {
  return {
    get: (id) =>
      read(async ({ db, t }) => {
        const [row] = await db.select().from(t.sandboxSpecs).where(eq(t.sandboxSpecs.id, id));
        return row;
      }),
    upsert: (spec) =>
      write(async ({ db, t }) => {
        const { id, createdAt, ...rest } = spec;
        await db
          .insert(t.sandboxSpecs)
          .values(spec)
          .onConflictDoUpdate({ target: t.sandboxSpecs.id, set: rest });
      }),
    search: (page) =>
      read(({ db, t }) => {
        const key = {
          sort: t.sandboxSpecs.createdAt,
          direction: "asc" as const,
          value: (r: { createdAt: number }) => r.createdAt,
        };
        return selectPage(db, t.sandboxSpecs, undefined, key, page);
      }),
  };
}
