import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCore, silentLogger } from "@sandbox-server/core";
import {
  createDb,
  createSecretBox,
  createSqliteStore,
  SECRET_KEY_BYTES,
  schema,
} from "@sandbox-server/db";
import { ProcessRuntime } from "@sandbox-server/runtime";
import { agentServerEntry, removeDataDir } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { ms } from "../lib/figure";
import { OWNER_ID } from "../lib/seed";
import { summarize } from "../lib/stats";

const SANDBOXES = 10_000;
/** Rows due at each measured sweep (idle by their row, active by what the control plane saw). */
const DUE = 100;
const REPEAT = 20;
const TARGET_MS = 50;
const HOUR = 3_600_000;

/**
 * Figure: the CPU one lifetime sweep costs the control plane with 10 000 sandboxes in the store
 * (SQLite file, as `npm start` keeps it), each under a policy (timeout, idle pause, retention),
 * measured with process.cpuUsage around `core.lifetime.sweep()` in this process (the store is
 * in-process, so that is all of it). Twice: no row due (the usual sweep: one indexed query), and
 * DUE rows due whose sandboxes had activity the row did not know of (each read, checked and
 * written back with its next due time).
 */
export async function lifetimeSweep(ctx: BenchContext): Promise<FigureResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-bench-lifetime-"));
  const now = Date.now();
  const file = path.join(dataDir, "sandbox-server.db");
  seed(file, now);
  const store = createSqliteStore(file, {
    secretBox: createSecretBox(randomBytes(SECRET_KEY_BYTES)),
  });
  const core = createCore({
    store,
    runtime: new ProcessRuntime({ rootDir: path.join(dataDir, "sandboxes"), agentServerEntry }),
    log: silentLogger,
    now: () => now,
  });
  const raw = createDb(file);
  try {
    const dueIds = Array.from({ length: DUE }, (_, i) => seedId(i * (SANDBOXES / DUE)));
    const makeDue = raw.sqlite.prepare(
      `UPDATE sandboxes SET lifetime_due_at = ? WHERE id IN (${dueIds.map(() => "?").join(",")})`,
    );
    const none: number[] = [];
    const some: number[] = [];
    for (let round = 0; round < REPEAT; round++) {
      none.push(await sweepCpuMs(core, 0));
      makeDue.run(now - 1, ...dueIds);
      for (const id of dueIds) core.deps.activity.set(id, now - 1_000);
      some.push(await sweepCpuMs(core, DUE));
    }
    const noneSummary = summarize(none);
    const someSummary = summarize(some);
    ctx.log(
      `lifetime sweep over ${SANDBOXES}: ${ms(noneSummary.median)} CPU with none due, ${ms(someSummary.median)} with ${DUE} due`,
    );
    return {
      key: "lifetime_sweep",
      data: {
        sandboxes: SANDBOXES,
        due_rows: DUE,
        repeat: REPEAT,
        cpu_ms_none_due: noneSummary,
        cpu_ms_some_due: someSummary,
      },
      rows: [
        {
          figure: "Lifetime sweep",
          runtime: "—",
          measure: `CPU of one sweep over ${SANDBOXES} sandboxes: none due / ${DUE} due, p50 (max)`,
          value: `${ms(noneSummary.median)} (${ms(noneSummary.max)}) / ${ms(someSummary.median)} (${ms(someSummary.max)})`,
          target: `< ${TARGET_MS} ms`,
          met: Math.max(noneSummary.median, someSummary.median) < TARGET_MS,
        },
      ],
    };
  } finally {
    raw.sqlite.close();
    await store.close();
    removeDataDir(dataDir);
  }
}

/** The CPU (user + system) one sweep takes, in ms; fails when it did not find `expected` rows. */
async function sweepCpuMs(core: ReturnType<typeof createCore>, expected: number): Promise<number> {
  const before = process.cpuUsage();
  const due = await core.lifetime.sweep();
  const used = process.cpuUsage(before);
  if (due !== expected) throw new Error(`lifetime sweep: ${due} rows due, expected ${expected}`);
  return (used.user + used.system) / 1000;
}

const seedId = (i: number) => `sb_life${String(i).padStart(15, "0")}`;

/** 10 000 RUNNING sandboxes, each timed out an hour on, idle-paused after 5 min of quiet, none due. */
function seed(file: string, now: number): void {
  const handle = createDb(file);
  try {
    handle.sqlite.transaction(() => {
      handle.db
        .insert(schema.users)
        .values({ id: OWNER_ID, name: "admin", isAdmin: true, createdAt: now })
        .run();
      for (let start = 0; start < SANDBOXES; start += 500) {
        const rows = Array.from({ length: Math.min(500, SANDBOXES - start) }, (_, k) => {
          const i = start + k;
          const since = now - (i % 60) * 1000;
          return {
            id: seedId(i),
            ownerId: OWNER_ID,
            specId: "default",
            runtime: "process",
            status: "RUNNING",
            statusDetail: null,
            sessionApiKey: randomUUID(),
            agentServerUrl: null,
            labels: {},
            env: {},
            lastActivityAt: since,
            createdAt: since,
            updatedAt: since,
            activeLimitMs: HOUR,
            onTimeout: "pause",
            idlePauseAfterMs: 300_000,
            deletePausedAfterMs: 24 * HOUR,
            activeMs: 0,
            runningSince: since,
            pausedAt: null,
            lifetimeDueAt: since + 300_000,
          };
        });
        handle.db.insert(schema.sandboxes).values(rows).run();
      }
    })();
  } finally {
    handle.sqlite.close();
  }
}
