import autocannon from "autocannon";

export interface LoadTarget {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface LoadRun {
  requests: number;
  seconds: number;
  /** Answers other than 2xx, errors and timeouts. */
  failures: number;
  /** Latency of every 2xx answer, in milliseconds (autocannon's own histogram rounds to 1 ms). */
  latencies: number[];
}

/** One autocannon run; latencies come from its per-response events at full precision. */
export async function runLoad(
  target: LoadTarget,
  connections: number,
  seconds: number,
): Promise<LoadRun> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    ...(target.body ? { body: target.body } : {}),
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  return {
    requests: result["2xx"],
    seconds: result.duration,
    failures: result.non2xx + result.errors + result.timeouts,
    latencies,
  };
}

/** Combines runs of one side: throughput over their total time, every latency. */
export function combine(runs: LoadRun[]): LoadRun {
  return {
    requests: runs.reduce((n, r) => n + r.requests, 0),
    seconds: runs.reduce((n, r) => n + r.seconds, 0),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    latencies: runs.flatMap((r) => r.latencies),
  };
}
