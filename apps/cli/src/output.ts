/** Where commands write; tests and the real process use the same shape. */
export interface Output {
  write(text: string): void;
}

export const stdout: Output = { write: (text) => void process.stdout.write(text) };

export interface Column<Row> {
  header: string;
  value: (row: Row) => string;
}

/** A plain aligned table (like `docker ps`): easy to read, easy to `grep` and `awk`. */
export function printTable<Row>(out: Output, rows: Row[], columns: Column<Row>[]): void {
  if (rows.length === 0) {
    out.write("(none)\n");
    return;
  }
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((line) => line[i]?.length ?? 0)),
  );
  const render = (line: string[]) =>
    line
      .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  out.write(`${render(columns.map((column) => column.header))}\n`);
  for (const line of cells) out.write(`${render(line)}\n`);
}

/** One record as `name: value` lines. */
export function printFields(out: Output, fields: [string, string][]): void {
  const width = Math.max(...fields.map(([name]) => name.length)) + 1;
  for (const [name, value] of fields) out.write(`${`${name}:`.padEnd(width)} ${value}\n`);
}

export function printJson(out: Output, value: unknown): void {
  out.write(`${JSON.stringify(value, null, 2)}\n`);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

/** `2026-01-02T03:04:05.678Z` → `2026-01-02 03:04:05` (UTC, as the server stores it). */
export function shortTime(iso: string): string {
  return iso.replace("T", " ").replace(/(\.\d+)?Z$/, "");
}

export function formatLabels(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
  return pairs.length > 0 ? pairs.join(",") : "-";
}

export function orDash(value: string | null | undefined): string {
  return value === null || value === undefined || value === "" ? "-" : value;
}
