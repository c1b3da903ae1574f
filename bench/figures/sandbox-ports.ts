import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { startPortAppCommand } from "../../apps/server/test/port-app";
import { type Combined, measureInterleaved, type Side } from "../lib/cell";
import { removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { startBarePipe } from "../lib/forwarder";
import { commandLine } from "../lib/proc";
import { deleteAll, startRunning } from "../lib/sandboxes";
import { type LoadTarget, runWrk, wrkVersion } from "../lib/wrk";

/** The app on all addresses (reached directly by the port URL) and one on loopback (tunnel). */
const APP_PORT = 8123;
const LOOPBACK_APP_PORT = 8124;
const ROUNDS = 4;
type SideName = "port_url" | "port_url_tunnel" | "direct" | "in_namespace" | "bare_pipe";
const WARMUP_SECONDS = 1;
const TARGETS = { addedP50Ms: 1, throughput: 0.8 };
/** c=1 on a small answer (what the proxy adds to each request), c=16 on 100 KiB (throughput). */
const CASES = [
  { name: "c1_small", connections: 1, path: "/", what: "small JSON" },
  { name: "c16_100kib", connections: 16, path: "/bytes?kib=100", what: "100 KiB" },
] as const;

/**
 * Port URLs: wrk against apps inside a process sandbox, four ways taking turns: through the
 * control plane's port URL to an app on all addresses (the proxy connects to the sandbox's veth
 * address), the same to an app on the sandbox's loopback only (the agent server's tunnel), and
 * directly: wrk from the host at the sandbox's veth address (what a client connecting to the
 * sandbox gets; the baseline), and wrk in the sandbox's network namespace at 127.0.0.1.
 */
export async function sandboxPorts(ctx: BenchContext): Promise<FigureResult> {
  const perRound = Math.max(1, Math.round(ctx.options.seconds / ROUNDS));
  const cp = await startControlPlane({ runtime: "process" });
  let pipe: Awaited<ReturnType<typeof startBarePipe>> | null = null;
  try {
    const sandbox = await startRunning(cp);
    const address = new URL(sandbox.agent_server_url).hostname;
    if (address === "127.0.0.1") throw new Error("the sandbox has no veth address (pasta?)");
    await startApp(sandbox, APP_PORT, "0.0.0.0");
    await startApp(sandbox, LOOPBACK_APP_PORT, "127.0.0.1");
    const hostOf = async (port: number) => {
      const signed = await cp.api("GET", `/api/v1/sandboxes/${sandbox.id}/ports/${port}`);
      if (signed.status !== 200) throw new Error(`port URL: ${signed.status}`);
      return new URL(signed.body.url).host;
    };
    const hosts = { wide: await hostOf(APP_PORT), loopback: await hostOf(LOOPBACK_APP_PORT) };
    const netns = netnsOf(cp.dataDir, sandbox.id);
    pipe = await startBarePipe(address, APP_PORT);
    const pids = {
      control_plane: cp.pid,
      bare_pipe: pipe.pid,
      agent_server: pidInNamespace("agent-server.js", netns),
      app: pidInNamespace(`port-app-${APP_PORT}.js`, netns),
      app_loopback: pidInNamespace(`port-app-${LOOPBACK_APP_PORT}.js`, netns),
    };
    const data: Record<string, unknown> = {
      load_generator: `${wrkVersion()}, 1 thread, keep-alive`,
      direct: `wrk from the host at the sandbox's veth address (${address}:${APP_PORT})`,
      in_namespace: `wrk in the sandbox's network namespace (nsenter --net) at 127.0.0.1:${APP_PORT}`,
      bare_pipe: `a bare node:net pipe on the host (bench/lib/bare-pipe.mjs) to ${address}:${APP_PORT}: the least a user-space proxy costs`,
      port_url_tunnel: `the port URL of an app on the sandbox's loopback (127.0.0.1:${LOOPBACK_APP_PORT}): the agent server's tunnel`,
      app: "node:http inside the sandbox (apps/server/test/port-app.ts)",
      seconds_per_cell: perRound * ROUNDS,
      rounds: ROUNDS,
    };
    const rows: Row[] = [];
    for (const c of CASES) {
      const viaPortUrl = (host: string): Side => ({
        target: { url: `${cp.url}${c.path}`, method: "GET", headers: { Host: host } },
      });
      const sides: Record<SideName, Side> = {
        port_url: viaPortUrl(hosts.wide),
        port_url_tunnel: viaPortUrl(hosts.loopback),
        direct: {
          target: { url: `http://${address}:${APP_PORT}${c.path}`, method: "GET", headers: {} },
        },
        bare_pipe: {
          target: { url: `${pipe.url}${c.path}`, method: "GET", headers: {} },
        },
        in_namespace: {
          target: {
            url: `http://127.0.0.1:${APP_PORT}${c.path}`,
            method: "GET",
            headers: {},
            wrap: ["nsenter", `--net=${netns}`],
          },
        },
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
      rows.push(...rowsOf(c, cells));
    }
    return { key: "sandbox_ports", data, rows, notes: [note(perRound)] };
  } finally {
    await pipe?.stop();
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

async function startApp(
  sandbox: { agent_server_url: string; session_api_key: string },
  port: number,
  address: string,
) {
  const res = await fetch(`${sandbox.agent_server_url}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-api-key": sandbox.session_api_key },
    body: JSON.stringify({ command: startPortAppCommand(port, address), timeout: 30 }),
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
  const { port_url: proxied, port_url_tunnel: tunnel, direct, in_namespace: inside } = cells;
  const pipe = cells.bare_pipe;
  return {
    added_p50_ms: r3(proxied.latency_ms.p50 - direct.latency_ms.p50),
    throughput_port_url_per_direct: r3(proxied.rps / direct.rps),
    added_p50_ms_tunnel: r3(tunnel.latency_ms.p50 - direct.latency_ms.p50),
    throughput_tunnel_per_direct: r3(tunnel.rps / direct.rps),
    added_p50_ms_vs_in_namespace: r3(proxied.latency_ms.p50 - inside.latency_ms.p50),
    throughput_port_url_per_in_namespace: r3(proxied.rps / inside.rps),
    throughput_bare_pipe_per_direct: r3(pipe.rps / direct.rps),
    throughput_port_url_per_bare_pipe: r3(proxied.rps / pipe.rps),
  };
}

const side = (name: string, cell: Combined) =>
  `${name} ${Math.round(cell.rps)} req/s, p50 ${ms(cell.latency_ms.p50)}`;

function rowsOf(c: (typeof CASES)[number], cells: Record<SideName, Combined>): Row[] {
  const ratios = ratiosOf(cells);
  const both =
    `${side("port URL", cells.port_url)}; ${side("direct at the veth address", cells.direct)}; ` +
    `${side("port URL of a loopback app (tunnel)", cells.port_url_tunnel)}; ` +
    `${side("a bare node pipe", cells.bare_pipe)}; ` +
    side("in the namespace", cells.in_namespace);
  const base = { figure: "Port URLs", runtime: "process" };
  if (c.connections === 1) {
    return [
      {
        ...base,
        measure: `GET ${c.what}, c=1: p50 added by the port URL (${both})`,
        value: ms(ratios.added_p50_ms),
        target: `≤ ${TARGETS.addedP50Ms} ms`,
        met: ratios.added_p50_ms <= TARGETS.addedP50Ms,
      },
      {
        ...base,
        measure: `GET ${c.what}, c=1: p50 added by the port URL of an app on the sandbox's loopback (the agent server's tunnel)`,
        value: ms(ratios.added_p50_ms_tunnel),
      },
    ];
  }
  return [
    {
      ...base,
      measure: `GET ${c.what}, c=${c.connections}: throughput through the port URL / direct (${both})`,
      value: `${ratios.throughput_port_url_per_direct}×`,
      target: `≥ ${TARGETS.throughput}×`,
      met: ratios.throughput_port_url_per_direct >= TARGETS.throughput,
    },
    {
      ...base,
      measure: `GET ${c.what}, c=${c.connections}: throughput through the port URL of an app on the sandbox's loopback (the agent server's tunnel) / direct`,
      value: `${ratios.throughput_tunnel_per_direct}×`,
    },
    {
      ...base,
      measure: `GET ${c.what}, c=${c.connections}: throughput through the port URL / wrk in the sandbox's namespace`,
      value: `${ratios.throughput_port_url_per_in_namespace}×`,
    },
    {
      ...base,
      measure: `GET ${c.what}, c=${c.connections}: throughput through a bare node pipe / direct; the port URL / the bare pipe`,
      value: `${ratios.throughput_bare_pipe_per_direct}×; ${ratios.throughput_port_url_per_bare_pipe}×`,
    },
  ];
}

const note = (perRound: number) =>
  `**Port URLs**: one run, wrk (1 thread, keep-alive), ${WARMUP_SECONDS} s warm-up per side, then ` +
  `${ROUNDS} rounds of ${perRound} s per case, the sides taking turns: through the control ` +
  "plane's port URL (wrk at the control plane's listener with the signed URL's Host) to an app on " +
  "all addresses, which the control plane reaches at the sandbox's veth address, and to an app on " +
  "the sandbox's loopback, which it reaches through the agent server's tunnel; directly, wrk from " +
  "the host at the sandbox's veth address (the baseline); through a bare node:net pipe on the " +
  "host to that address (the least any user-space proxy costs); and wrk in the sandbox's network " +
  "namespace at 127.0.0.1. Load generator, control plane, agent server and apps share the " +
  "machine's cores.";
