import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FigureResult, Row } from "./figure";

const root = fileURLToPath(new URL("../..", import.meta.url));
const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

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

/** Writes bench/results/<date>.json; returns its path relative to the repository. */
export function writeResults(
  date: string,
  meta: Record<string, unknown>,
  figures: FigureResult[],
): string {
  const dir = path.join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${date}.json`);
  const body = {
    ...meta,
    figures: Object.fromEntries(figures.map((f) => [f.key, f.data])),
    table: figures.flatMap((f) => f.rows),
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  return path.relative(root, file);
}

function target(row: Row): string {
  if (!row.target) return "—";
  if (row.met === undefined) return row.target;
  return `${row.target} ${row.met ? "✅" : "❌"}`;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** Replaces the text between the bench markers in README.md (appending them when absent). */
export function updateReadme(
  date: string,
  machine: Machine,
  resultsFile: string,
  rows: Row[],
): void {
  const readmePath = path.join(root, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const table = [
    "## Benchmarks",
    "",
    `\`npm run bench\` on ${date}: ${machine.cpus} × ${machine.cpu_model}, ${machine.memory_gib} GiB, ` +
      `${machine.os}, Node ${machine.node}. Every figure with min/median/p95/p99: [${resultsFile}](${resultsFile}).`,
    "",
    "| Figure | Runtime | Measure | Value | Target |",
    "|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${cell(r.figure)} | ${cell(r.runtime)} | ${cell(r.measure)} | ${cell(r.value)} | ${cell(target(r))} |`,
    ),
  ].join("\n");
  const block = `${START}\n${table}\n${END}`;
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  const next =
    start !== -1 && end > start
      ? `${readme.slice(0, start)}${block}${readme.slice(end + END.length)}`
      : `${readme.replace(/\n*$/, "\n")}\n${block}\n`;
  writeFileSync(readmePath, next);
}
