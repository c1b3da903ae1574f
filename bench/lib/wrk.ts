import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface LoadTarget {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** A command wrk runs under, e.g. `nsenter -t <pid> -n` to load a port inside a namespace. */
  wrap?: string[];
}

/** What one wrk run reports (latencies in milliseconds). */
export interface WrkRun {
  /** 2xx/3xx answers. */
  ok: number;
  /** Answers ≥ 400, plus connect, read, write errors and timeouts. */
  failures: number;
  seconds: number;
  rps: number;
  latency_ms: { mean: number; p50: number; p90: number; p99: number; max: number };
}

const WRK = process.env.WRK ?? "wrk";

/** null when wrk runs; otherwise a message that says how to get it. */
export function wrkMissing(): string | null {
  const probe = spawnSync(WRK, ["--version"], { encoding: "utf8" });
  // wrk --version prints its banner and exits 1; only a missing binary is an error here.
  if (probe.error) {
    return (
      `The benchmark drives load with wrk, which was not found (${probe.error.message}). ` +
      "Install it (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk) or set WRK=/path/to/wrk."
    );
  }
  return null;
}

export function wrkVersion(): string {
  const probe = spawnSync(WRK, ["--version"], { encoding: "utf8" });
  return /^wrk \S+/.exec(probe.stdout ?? "")?.[0] ?? "wrk";
}

const MARK = "WRK_JSON ";

/**
 * The Lua script: the method and body (bodies only travel through a script), and a `done` hook
 * that prints the counts and latency percentiles as one JSON line.
 */
function script(target: LoadTarget): string {
  const body = target.body ?? "";
  const eq = "=".repeat(8);
  return `wrk.method = "${target.method}"
${body ? `wrk.body = [${eq}[${body}]${eq}]` : ""}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '${MARK}{"requests":%.0f,"duration_us":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,' ..
    '"mean":%.1f,"p50":%.0f,"p90":%.0f,"p99":%.0f,"max":%.0f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
`;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

const ms = (us: number) => Math.round(us) / 1000;

/**
 * One wrk run of `seconds` against `target` with `connections` keep-alive connections on one
 * thread (one wrk thread drives 16 connections easily and leaves the cores to the servers).
 */
export async function runWrk(
  target: LoadTarget,
  connections: number,
  seconds: number,
): Promise<WrkRun> {
  const dir = mkdtempSync(path.join(tmpdir(), "sandbox-bench-wrk-"));
  const file = path.join(dir, "load.lua");
  writeFileSync(file, script(target));
  const args = [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--timeout",
    "10s",
    "-s",
    file,
    ...Object.entries(target.headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    target.url,
  ];
  try {
    const [command = WRK, ...rest] = [...(target.wrap ?? []), WRK, ...args];
    const child = spawn(command, rest, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", resolve);
    });
    const line = out.split("\n").find((l) => l.startsWith(MARK));
    if (code !== 0 || !line) throw new Error(`wrk exited ${code}:\n${out.slice(-2000)}`);
    const r = JSON.parse(line.slice(MARK.length)) as WrkJson;
    const failures = r.status + r.connect + r.read + r.write + r.timeout;
    const secs = r.duration_us / 1e6;
    const ok = Math.max(0, r.requests - r.status);
    return {
      ok,
      failures,
      seconds: secs,
      rps: ok / secs,
      latency_ms: {
        mean: ms(r.mean),
        p50: ms(r.p50),
        p90: ms(r.p90),
        p99: ms(r.p99),
        max: ms(r.max),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
