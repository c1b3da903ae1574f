import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FigureResult, Row } from "./figure";

const root = fileURLToPath(new URL("../..", import.meta.url));
const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";
/** README edits take the lock that tools committing in this checkout take (flock(1)). */
const README_LOCK = process.env.BENCH_README_LOCK ?? "/tmp/git.lock";

export interface Machine {
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  os: string;
  node: string;
}

export function describeMachine(): Machine {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model.trim() ?? "unknown",
    memory_gib: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
  };
}

/** A table row as stored: with the key of the figure it belongs to. */
type StoredRow = Row & { key?: string };

interface ResultsFile {
  figures?: Record<string, unknown>;
  table?: StoredRow[];
  [field: string]: unknown;
}

/**
 * Writes bench/results/<date>.json. A run of some figures (`--only`) replaces those figures in the
 * day's file and keeps the others, so a full table can be assembled from partial runs; `order`
 * (figure keys) keeps the table in the registry's order. Returns the path, the whole table and
 * the figures' notes and the load averages they were measured at, for the README.
 */
export function writeResults(
  date: string,
  meta: Record<string, unknown>,
  figures: FigureResult[],
  order: string[],
): { file: string; table: StoredRow[]; notes: string[]; loads: number[] } {
  const dir = path.join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${date}.json`);
  const previous: ResultsFile = existsSync(file)
    ? (JSON.parse(readFileSync(file, "utf8")) as ResultsFile)
    : {};
  const fresh = new Set(figures.map((f) => f.key));
  const measuredAt = new Date().toISOString();
  const merged: Record<string, unknown> = {};
  for (const [key, data] of Object.entries(previous.figures ?? {})) {
    if (!fresh.has(key)) merged[key] = data;
  }
  for (const f of figures) {
    merged[f.key] = {
      measured_at: measuredAt,
      ...f.data,
      ...(f.notes ? { readme_notes: f.notes } : {}),
    };
  }
  const rank = (key: string | undefined) => {
    const i = order.indexOf(key ?? "");
    return i === -1 ? order.length : i;
  };
  const table = [
    ...(previous.table ?? []).filter((row) => row.key && !fresh.has(row.key)),
    ...figures.flatMap((f) => f.rows.map((row) => ({ key: f.key, ...row }))),
  ].sort((a, b) => rank(a.key) - rank(b.key));
  const sorted = Object.entries(merged).sort(([a], [b]) => rank(a) - rank(b));
  const body = { ...meta, figures: Object.fromEntries(sorted), table };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  const notes = sorted.flatMap(
    ([, data]) => (data as { readme_notes?: string[] }).readme_notes ?? [],
  );
  const loads = sorted.flatMap(([, data]) => {
    const load = (data as { load_average_1m_at_start?: number }).load_average_1m_at_start;
    return typeof load === "number" ? [load] : [];
  });
  return { file: path.relative(root, file), table, notes, loads };
}

function target(row: Row): string {
  if (!row.target) return "—";
  if (row.met === undefined) return row.target;
  return `${row.target} ${row.met ? "✅" : "❌"}`;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** Replaces the text between the bench markers in README.md (appending them when absent). */
export async function updateReadme(
  date: string,
  machine: Machine,
  resultsFile: string,
  rows: Row[],
  notes: string[],
  loads: number[],
): Promise<void> {
  const low = Math.min(...loads);
  const high = Math.max(...loads);
  const load = loads.length
    ? `; load average (1 min) ${low === high ? low : `${low}–${high}`} as the figures began`
    : "";
  const table = [
    "## Benchmarks",
    "",
    `\`npm run bench\` on ${date}: ${machine.cpus} × ${machine.cpu_model}, ${machine.memory_gib} GiB, ` +
      `${machine.os}, Node ${machine.node}${load}. ` +
      `Every figure in full: [${resultsFile}](${resultsFile}).`,
    "",
    "| Figure | Runtime | Measure | Value | Target |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${cell(r.figure)} | ${cell(r.runtime)} | ${cell(r.measure)} | ${cell(r.value)} | ${cell(target(r))} |`,
    ),
    ...(notes.length ? ["", notes.join("\n\n")] : []),
  ].join("\n");
  const block = `${START}\n${table}\n${END}`;
  const readmePath = path.join(root, "README.md");
  await withLock(README_LOCK, () => {
    // Read under the lock: someone else may have edited the README meanwhile.
    const readme = readFileSync(readmePath, "utf8");
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    const next =
      start !== -1 && end > start
        ? `${readme.slice(0, start)}${block}${readme.slice(end + END.length)}`
        : `${readme.replace(/\n*$/, "\n")}\n${block}\n`;
    writeFileSync(readmePath, next);
  });
}

/** Runs `fn` while flock(1) holds `file` (or without a lock where flock is not installed). */
async function withLock(file: string, fn: () => void): Promise<void> {
  if (spawnSync("flock", ["--version"]).error) {
    fn();
    return;
  }
  const holder = spawn("flock", [file, "-c", "echo locked; read _"], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => holder.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve();
    });
    holder.once("exit", (code) => reject(new Error(`flock ${file} exited ${code}`)));
  });
  try {
    fn();
  } finally {
    holder.stdin.end();
    await exited;
  }
}
