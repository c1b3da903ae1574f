import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { startPortAppCommand } from "../../apps/server/test/port-app";
import { type Combined, measureInterleaved, type Side } from "../lib/cell";
import { removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { commandLine } from "../lib/proc";
import { deleteAll, startRunning } from "../lib/sandboxes";
import { type LoadTarget, runWrk, wrkVersion } from "../lib/wrk";

const APP_PORT = 8123;
const PIPE_PORT = 9123;
/**
 * A bare node:net pipe (listen → connect, `pipe` both ways): one user-space hop, what entering
 * the namespace from the control plane would leave of the three a port URL takes.
 */
const PIPE = `const net = require("node:net");
net.createServer((c) => { const t = net.connect(${APP_PORT}, "127.0.0.1"); t.setNoDelay(true); c.setNoDelay(true);
  c.pipe(t); t.pipe(c); c.on("error", () => t.destroy()); t.on("error", () => c.destroy()); })
  .listen(${PIPE_PORT}, "127.0.0.1", () => console.log("ready"));`;
const ROUNDS = 4;
type SideName = "port_url" | "direct" | "one_hop";
const WARMUP_SECONDS = 1;
const TARGETS = { addedP50Ms: 1, throughput: 0.8 };
/** c=1 on a small answer (what the proxy adds to each request), c=16 on 100 KiB (throughput). */
const CASES = [
  { name: "c1_small", connections: 1, path: "/", what: "small JSON" },
  { name: "c16_100kib", connections: 16, path: "/bytes?kib=100", what: "100 KiB" },
] as const;

/**
 * Port URLs: wrk against an app inside a process sandbox, two ways taking turns: through the
 * control plane's port URL (Host header of the signed URL, the tunnel through the agent server)
 * and directly, wrk itself run in the sandbox's network namespace (`nsenter --net=…`) against
 * 127.0.0.1:{port}: the app as the sandbox's own processes see it.
 */
export async function sandboxPorts(ctx: BenchContext): Promise<FigureResult> {
  const perRound = Math.max(1, Math.round(ctx.options.seconds / ROUNDS));
  const cp = await startControlPlane({ runtime: "process" });
  let pipe: ChildProcess | undefined;
  try {
    const sandbox = await startRunning(cp);
    await startApp(sandbox);
    const port = await cp.api("GET", `/api/v1/sandboxes/${sandbox.id}/ports/${APP_PORT}`);
    if (port.status !== 200) throw new Error(`port URL: ${port.status}`);
    const host = new URL(port.body.url).host;
    const netns = netnsOf(cp.dataDir, sandbox.id);
    pipe = await startPipe(netns);
    const pids = {
      one_hop_pipe: pipe.pid ?? 0,
      control_plane: cp.pid,
      agent_server: pidInNamespace("agent-server.js", netns),
      app: pidInNamespace(`port-app-${APP_PORT}.js`, netns),
    };
    const data: Record<string, unknown> = {
      load_generator: `${wrkVersion()}, 1 thread, keep-alive`,
      direct: "wrk in the sandbox's network namespace (nsenter --net) against 127.0.0.1:8123",
      app: "node:http inside the sandbox (apps/server/test/port-app.ts)",
      seconds_per_cell: perRound * ROUNDS,
      rounds: ROUNDS,
    };
    const rows: Row[] = [];
    for (const c of CASES) {
      const inNamespace = (port: number): LoadTarget => ({
        url: `http://127.0.0.1:${port}${c.path}`,
        method: "GET",
        headers: {},
        wrap: ["nsenter", `--net=${netns}`],
      });
      const sides: Record<SideName, Side> = {
        port_url: { target: { url: `${cp.url}${c.path}`, method: "GET", headers: { Host: host } } },
        direct: { target: inNamespace(APP_PORT) },
        one_hop: { target: inNamespace(PIPE_PORT) },
      };
      for (const side of Object.values(sides)) await warm(side.target, c.connections);
      const cells = await measureInterleaved(sides, c.connections, ROUNDS, perRound, pids);
      for (const [name, cell] of Object.entries(cells)) {
        ctx.log(
          `ports ${c.name} ${name}: ${Math.round(cell.rps)} req/s, p50 ${ms(cell.latency_ms.p50)}, ` +
            `CPU µs/req ${JSON.stringify(cell.cpu_us_per_request)}` +
            `${cell.failures ? `, ${cell.failures} failures` : ""}`,
        );
      }
      data[c.name] = { cells, ratios: ratiosOf(cells) };
      rows.push(rowOf(c, cells));
    }
    return { key: "sandbox_ports", data, rows, notes: [note(perRound)] };
  } finally {
    pipe?.kill();
    await deleteAll(cp).catch(() => undefined);
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

/**
 * The node process in the network namespace `netns` whose command line contains `text` (a
 * wrapper such as bubblewrap is not node; other sandboxes' processes are in other namespaces).
 */
function pidInNamespace(text: string, netns: string): number {
  const wanted = `net:[${statSync(netns).ino}]`;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const command = commandLine(pid);
    if (!command.includes(text) || !/^\S*node /.test(command)) continue;
    try {
      if (readlinkSync(`/proc/${pid}/ns/net`) === wanted) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return 0;
}

/**
 * The sandbox's network namespace, from its runtime record (`sandbox.json`); without one
 * (shared network), that of the process it started.
 */
function netnsOf(dataDir: string, id: string): string {
  const state = JSON.parse(
    readFileSync(path.join(dataDir, "sandboxes", id, "sandbox.json"), "utf8"),
  ) as { pid: number; network?: { namespace?: string } | null };
  const namespace = state.network?.namespace;
  return namespace ? `/run/netns/${namespace}` : `/proc/${state.pid}/ns/net`;
}

/** The one-hop pipe, in the sandbox's network namespace, once it listens. */
async function startPipe(netns: string): Promise<ChildProcess> {
  const child = spawn("nsenter", [`--net=${netns}`, process.execPath, "-e", PIPE], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code: number | null) => reject(new Error(`the pipe exited ${code}`)));
  });
  return child;
}

async function startApp(sandbox: { agent_server_url: string; session_api_key: string }) {
  const res = await fetch(`${sandbox.agent_server_url}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-api-key": sandbox.session_api_key },
    body: JSON.stringify({ command: startPortAppCommand(APP_PORT), timeout: 30 }),
  });
  const run = (await res.json()) as { exit_code: number; stderr: string };
  if (run.exit_code !== 0) throw new Error(`the app did not start: ${run.stderr}`);
}

async function warm(target: LoadTarget, connections: number) {
  const run = await runWrk(target, connections, WARMUP_SECONDS);
  if (run.ok === 0) throw new Error(`nothing answered at ${target.url}`);
}

const r3 = (value: number) => Math.round(value * 1000) / 1000;

function ratiosOf(cells: Record<SideName, Combined>) {
  return {
    added_p50_ms: r3(cells.port_url.latency_ms.p50 - cells.direct.latency_ms.p50),
    throughput_port_url_per_direct: r3(cells.port_url.rps / cells.direct.rps),
    added_p50_ms_one_hop: r3(cells.one_hop.latency_ms.p50 - cells.direct.latency_ms.p50),
    throughput_one_hop_per_direct: r3(cells.one_hop.rps / cells.direct.rps),
  };
}

function rowOf(c: (typeof CASES)[number], cells: Record<SideName, Combined>): Row {
  const { port_url: proxied, direct, one_hop: oneHop } = cells;
  const ratios = ratiosOf(cells);
  const both =
    `port URL ${Math.round(proxied.rps)} req/s, p50 ${ms(proxied.latency_ms.p50)}; ` +
    `direct ${Math.round(direct.rps)} req/s, p50 ${ms(direct.latency_ms.p50)}; ` +
    `one node pipe in the namespace ${Math.round(oneHop.rps)} req/s, p50 ${ms(oneHop.latency_ms.p50)}`;
  if (c.connections === 1) {
    return {
      figure: "Port URLs",
      runtime: "process",
      measure: `GET ${c.what}, c=1: p50 added by the port URL (${both})`,
      value: ms(ratios.added_p50_ms),
      target: `≤ ${TARGETS.addedP50Ms} ms`,
      met: ratios.added_p50_ms <= TARGETS.addedP50Ms,
    };
  }
  return {
    figure: "Port URLs",
    runtime: "process",
    measure: `GET ${c.what}, c=${c.connections}: throughput through the port URL / direct (${both})`,
    value: `${ratios.throughput_port_url_per_direct}×`,
    target: `≥ ${TARGETS.throughput}×`,
    met: ratios.throughput_port_url_per_direct >= TARGETS.throughput,
  };
}

const note = (perRound: number) =>
  `**Port URLs**: one run, wrk (1 thread, keep-alive), ${WARMUP_SECONDS} s warm-up per side, then ` +
  `${ROUNDS} rounds of ${perRound} s per case, the two sides taking turns: through the control ` +
  "plane's port URL (wrk at the control plane's listener with the signed URL's Host; the control " +
  "plane pipes each connection through a tunnel of the sandbox's agent server), and directly, wrk " +
  "run in the sandbox's network namespace against 127.0.0.1; a third side, wrk in the namespace " +
  "through one bare node:net pipe, is the data path of entering the namespace from the control " +
  "plane (ADR 0029's alternative). Load generator, control plane, agent server and app share the " +
  "machine's cores.";
