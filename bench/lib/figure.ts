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
  /** Lines printed under the README table: how to read this figure. */
  notes?: string[];
}

/** Command-line options every figure may read. */
export interface BenchOptions {
  /** `--seconds N`: seconds of load per cell of the proxy figure, split over its rounds (default 8). */
  seconds: number;
  /** `--profile`: also record a V8 CPU profile of the control plane under send-message load. */
  profile: boolean;
}

export interface BenchContext {
  /** null when Docker figures run; otherwise the reason they are skipped. */
  dockerSkip: string | null;
  log: (line: string) => void;
  options: BenchOptions;
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
