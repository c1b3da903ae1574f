import { cpuTicks, ticksToMicros } from "./proc";
import { type LoadTarget, runWrk, type WrkRun } from "./wrk";

/** The processes whose CPU a cell samples, by name (a pid ≤ 0 is not sampled). */
export type Pids = Record<string, number>;

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
  const names = Object.keys(pids).filter((name) => (pids[name] ?? 0) > 0);
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
