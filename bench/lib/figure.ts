/** One line of the README table. */
export interface Row {
  figure: string;
  runtime: string;
  measure: string;
  value: string;
  target?: string;
  /** Whether the target is met; absent when there is no target. */
  met?: boolean;
}

export interface FigureResult {
  /** Key in the JSON file. */
  key: string;
  data: Record<string, unknown>;
  rows: Row[];
}

export interface BenchContext {
  /** null when Docker figures run; otherwise the reason they are skipped. */
  dockerSkip: string | null;
  log: (line: string) => void;
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
