import { randomUUID } from "node:crypto";
import path from "node:path";
import { createDb, schema } from "@sandbox-server/db";

type SandboxInsert = typeof schema.sandboxes.$inferInsert;
type ConversationInsert = typeof schema.conversations.$inferInsert;

export const OWNER_ID = "usr_admin";
const BATCH = 500;

/**
 * Seeds a data directory through the db package: the admin user, `sandboxes` sandboxes and
 * `conversations` conversations (spread evenly over them, some created in the same millisecond),
 * with batch inserts inside one transaction. The sandboxes are ERROR ("seeded"): they have no
 * runtime side, so reconciliation leaves them alone.
 */
export function seedDataDir(dataDir: string, sandboxes: number, conversations: number): void {
  const handle = createDb(path.join(dataDir, "sandbox-server.db"));
  const base = Date.now() - 30 * 24 * 3600 * 1000;
  try {
    handle.sqlite.transaction(() => {
      handle.db
        .insert(schema.users)
        .values({ id: OWNER_ID, name: "admin", isAdmin: true, createdAt: base })
        .run();
      let rows: SandboxInsert[] = [];
      for (let i = 0; i < sandboxes; i++) {
        rows.push({
          id: `sb_seed${String(i).padStart(15, "0")}`,
          ownerId: OWNER_ID,
          specId: "default",
          runtime: "process",
          status: "ERROR",
          statusDetail: "seeded for the listing benchmark",
          sessionApiKey: randomUUID(),
          agentServerUrl: null,
          labels: { shard: String(i % 16) },
          env: {},
          lastActivityAt: null,
          createdAt: base + i * 10,
          updatedAt: base + i * 10,
        });
        if (rows.length === BATCH) {
          handle.db.insert(schema.sandboxes).values(rows).run();
          rows = [];
        }
      }
      if (rows.length) handle.db.insert(schema.sandboxes).values(rows).run();
      let convs: ConversationInsert[] = [];
      const perSandbox = Math.max(1, Math.floor(conversations / Math.max(1, sandboxes)));
      for (let i = 0; i < conversations; i++) {
        // Two conversations per millisecond: the keyset's id tie-break is exercised.
        const at = base + Math.floor(i / 2);
        convs.push({
          id: randomUUID(),
          sandboxId: `sb_seed${String(Math.floor(i / perSandbox) % sandboxes).padStart(15, "0")}`,
          ownerId: OWNER_ID,
          title: `seeded conversation ${i}`,
          agent: { kind: "shell" },
          metadata: { n: String(i) },
          archived: false,
          executionStatus: "finished",
          lastEventAt: at,
          createdAt: at,
          updatedAt: at,
        });
        if (convs.length === BATCH) {
          handle.db.insert(schema.conversations).values(convs).run();
          convs = [];
        }
      }
      if (convs.length) handle.db.insert(schema.conversations).values(convs).run();
    })();
  } finally {
    handle.close();
  }
}

/** EXPLAIN QUERY PLAN and the time of a query straight on the SQLite file. */
export function explain(dataDir: string, sql: string, params: unknown[], repeat = 200) {
  const handle = createDb(path.join(dataDir, "sandbox-server.db"));
  try {
    const plan = handle.sqlite
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((row) => (row as { detail: string }).detail);
    const statement = handle.sqlite.prepare(sql);
    const times: number[] = [];
    for (let i = 0; i < repeat; i++) {
      const started = performance.now();
      statement.all(...params);
      times.push(performance.now() - started);
    }
    return { plan, times };
  } finally {
    handle.close();
  }
}
