import { type CpuSubject, cpuTicks, isSampled, ticksToMicros } from "./proc";
import { type LoadTarget, runWrk, type WrkRun } from "./wrk";

/** The processes (or threads) whose CPU a cell samples, by name (a pid ≤ 0 is not sampled). */
export type Pids = Record<string, CpuSubject>;

/** One load level against one target: wrk's figures and each process's CPU per request. */
export interface Cell extends WrkRun {
  connections: number;
  /** CPU (utime + stime) each process spent from just before the run until `settle` returned. */
  cpu_ms: Record<string, number>;
  /** The same divided by the 2xx answers, in microseconds. */
  cpu_us_per_request: Record<string, number>;
  /** How long `settle` took after the run (e.g. the control plane storing the run's events). */
  settle_ms: number;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * Runs wrk for `seconds`, sampling /proc/<pid>/stat of every process before the run and after
 * `settle` (which waits for work the run left behind, so that work is counted too).
 */
export async function measureCell(
  target: LoadTarget,
  connections: number,
  seconds: number,
  pids: Pids,
  settle: () => Promise<unknown> = async () => undefined,
): Promise<Cell> {
  const names = Object.keys(pids).filter((name) => isSampled(pids[name] ?? 0));
  const before = Object.fromEntries(names.map((name) => [name, cpuTicks(pids[name] ?? 0)]));
  const run = await runWrk(target, connections, seconds);
  const settleStarted = performance.now();
  await settle();
  const settleMs = performance.now() - settleStarted;
  const cpuMs: Record<string, number> = {};
  const perRequest: Record<string, number> = {};
  for (const name of names) {
    const micros = ticksToMicros(cpuTicks(pids[name] ?? 0) - (before[name] ?? 0));
    cpuMs[name] = round1(micros / 1000);
    perRequest[name] = run.ok > 0 ? round1(micros / run.ok) : Number.NaN;
  }
  return {
    ...run,
    connections,
    cpu_ms: cpuMs,
    cpu_us_per_request: perRequest,
    settle_ms: round1(settleMs),
  };
}

/** One side of an interleaved comparison. */
export interface Side {
  target: LoadTarget;
  settle?: () => Promise<unknown>;
}

/** Several cells of one side combined: per-round latencies, and the rest summed. */
export interface Combined extends Cell {
  rounds: number;
  rps_per_round: number[];
}

/**
 * Runs every side `rounds` times for `seconds` each, the sides' order rotating every round, so a
 * change in the machine's background load (or drift in a server) falls on every side alike.
 * Throughput and CPU are over all rounds; the latency percentiles are the median of the rounds'.
 */
export async function measureInterleaved<K extends string>(
  sides: Record<K, Side>,
  connections: number,
  rounds: number,
  seconds: number,
  pids: Pids,
): Promise<Record<K, Combined>> {
  const names = Object.keys(sides) as K[];
  const runs = Object.fromEntries(names.map((name) => [name, [] as Cell[]])) as Record<K, Cell[]>;
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length] as K);
    for (const name of order) {
      const side = sides[name];
      runs[name].push(await measureCell(side.target, connections, seconds, pids, side.settle));
    }
  }
  return Object.fromEntries(names.map((name) => [name, combine(runs[name])])) as Record<
    K,
    Combined
  >;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

function combine(cells: Cell[]): Combined {
  const ok = cells.reduce((n, c) => n + c.ok, 0);
  const secs = cells.reduce((n, c) => n + c.seconds, 0);
  const processes = Object.keys(cells[0]?.cpu_ms ?? {});
  const cpuMs = Object.fromEntries(
    processes.map((p) => [p, round1(cells.reduce((n, c) => n + (c.cpu_ms[p] ?? 0), 0))]),
  );
  const latency = (key: keyof WrkRun["latency_ms"]) => median(cells.map((c) => c.latency_ms[key]));
  return {
    ok,
    failures: cells.reduce((n, c) => n + c.failures, 0),
    seconds: secs,
    rps: ok / secs,
    latency_ms: {
      mean: latency("mean"),
      p50: latency("p50"),
      p90: latency("p90"),
      p99: latency("p99"),
      max: Math.max(...cells.map((c) => c.latency_ms.max)),
    },
    connections: cells[0]?.connections ?? 0,
    cpu_ms: cpuMs,
    cpu_us_per_request: Object.fromEntries(
      processes.map((p) => [p, ok > 0 ? round1(((cpuMs[p] ?? 0) * 1000) / ok) : Number.NaN]),
    ),
    settle_ms: round1(cells.reduce((n, c) => n + c.settle_ms, 0)),
    rounds: cells.length,
    rps_per_round: cells.map((c) => Math.round(c.rps)),
  };
}
