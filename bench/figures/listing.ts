import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ControlPlane, removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { explain, OWNER_ID, seedDataDir } from "../lib/seed";
import { since, summarize } from "../lib/stats";

const CONVERSATIONS = 100_000;
const SANDBOXES = 10_000;
const DEPTH = 500;
const REPEAT = 200;
const TARGET_MS = 10;

/**
 * Figure 5: 100 000 conversations and 10 000 sandboxes seeded through the db package, then the
 * first page and page 500 (limit 100, reached by following next_page_id) of the list, each
 * fetched REPEAT times; the same for the sandbox search (page 50). Query plans of the keyset query
 * as the repository writes it, and with a row-value comparison, for the report.
 */
export async function listing(ctx: BenchContext): Promise<FigureResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sandbox-bench-listing-"));
  const seedStarted = performance.now();
  seedDataDir(dataDir, SANDBOXES, CONVERSATIONS);
  const seedMs = since(seedStarted);
  ctx.log(
    `listing: seeded ${CONVERSATIONS} conversations, ${SANDBOXES} sandboxes in ${Math.round(seedMs)} ms`,
  );
  const cp = await startControlPlane({ runtime: "process", dataDir });
  try {
    const conv = await pages(cp, "/api/v1/app-conversations?limit=100", DEPTH);
    const sbx = await pages(cp, "/api/v1/sandboxes/search?limit=100", 50);
    const plans = queryPlans(dataDir, conv.deepCursor);
    const data = {
      conversations: CONVERSATIONS,
      sandboxes: SANDBOXES,
      seed_ms: Math.round(seedMs),
      app_conversations: conv.data,
      sandboxes_search: sbx.data,
      query_plans: plans,
    };
    const firstP50 = conv.first.median;
    const deepP50 = conv.deep.median;
    const rows: Row[] = [
      {
        figure: "Listing at scale",
        runtime: "—",
        measure: "GET /app-conversations first page, p50 / p95",
        value: `${ms(firstP50)} / ${ms(conv.first.p95)}`,
        target: `p50 ≤ ${TARGET_MS} ms`,
        met: firstP50 <= TARGET_MS,
      },
      {
        figure: "Listing at scale",
        runtime: "—",
        measure: `GET /app-conversations page ${DEPTH}, p50 / p95`,
        value: `${ms(deepP50)} / ${ms(conv.deep.p95)}`,
        target: `p50 ≤ ${TARGET_MS} ms`,
        met: deepP50 <= TARGET_MS,
      },
    ];
    ctx.log(`listing: first ${ms(firstP50)}, page ${DEPTH} ${ms(deepP50)}`);
    return { key: "listing_at_scale", data, rows };
  } finally {
    await cp.stop();
    removeDataDir(dataDir);
  }
}

async function pages(cp: ControlPlane, route: string, depth: number) {
  const get = async (pageId: string | null) => {
    const started = performance.now();
    const res = await cp.api(
      "GET",
      pageId ? `${route}&page_id=${encodeURIComponent(pageId)}` : route,
    );
    const elapsed = since(started);
    if (res.status !== 200 || res.body.items.length !== 100) {
      throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    return { elapsed, next: res.body.next_page_id as string | null };
  };
  const firstTimes: number[] = [];
  for (let i = 0; i < REPEAT; i++) firstTimes.push((await get(null)).elapsed);
  // Follow the cursors to the page `depth`; its page_id is the cursor of the page before.
  const walkStarted = performance.now();
  let cursor: string | null = null;
  for (let page = 1; page < depth; page++) cursor = (await get(cursor)).next;
  const walkMs = since(walkStarted);
  const deepTimes: number[] = [];
  for (let i = 0; i < REPEAT; i++) deepTimes.push((await get(cursor)).elapsed);
  const first = summarize(firstTimes);
  const deep = summarize(deepTimes);
  return {
    first,
    deep,
    deepCursor: cursor ?? "",
    data: {
      first_page_ms: first,
      [`page_${depth}_ms`]: deep,
      [`walk_to_page_${depth}_ms`]: Math.round(walkMs),
    },
  };
}

/** The repository's keyset query (paging.ts) and its row-value form, planned and timed. */
function queryPlans(dataDir: string, pageId: string) {
  const [v, id] = JSON.parse(Buffer.from(pageId, "base64url").toString("utf8")) as [number, string];
  const select = "SELECT * FROM conversations";
  const order = "ORDER BY created_at DESC, id DESC LIMIT 101";
  const variants = {
    first_page: [`${select} WHERE owner_id = ? ${order}`, [OWNER_ID]],
    deep_page_as_written: [
      `${select} WHERE owner_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ${order}`,
      [OWNER_ID, v, v, id],
    ],
    deep_page_row_value: [
      `${select} WHERE owner_id = ? AND (created_at, id) < (?, ?) ${order}`,
      [OWNER_ID, v, id],
    ],
  } as const;
  return Object.fromEntries(
    Object.entries(variants).map(([name, [sql, params]]) => {
      const { plan, times } = explain(dataDir, sql, [...params]);
      return [name, { sql, plan, sqlite_ms: summarize(times) }];
    }),
  );
}
