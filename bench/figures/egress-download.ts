import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { LanHost } from "../../packages/runtime/src/process/test/lan-host";
import { type Json, removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { CLK_TCK, cpuTicks } from "../lib/proc";
import { waitForStatus } from "../lib/sandboxes";

const exec = promisify(execFile);

const MIB = 100;
const ROUNDS = 5;
const TARGET_RATIO = 0.8;

/**
 * curl's own measure of a download: seconds from start to the last byte, printed alone. Without
 * the proxy variables (`--noproxy '*'`) it goes through the enforcer; with them (a sandbox has
 * them), through the control plane's egress proxy.
 */
const curlCommand = (url: string, proxied = false) =>
  `curl -sS ${proxied ? "" : "--noproxy '*' "}-o /dev/null -w '%{time_total}' '${url}'`;

/** The data paths of a process sandbox's namespace, each measured where it works here. */
const LINKS = ["veth", "pasta"] as const;
type Link = (typeof LINKS)[number];

interface LinkResult {
  link: Link;
  sandboxS: number[];
  proxiedS: number[];
  /** The control plane's CPU during each proxied download (it carries the bytes). */
  proxyTicks: number[];
  hostS: number[];
}

/**
 * A sandbox's download through its egress enforcer (own network namespace, the nftables table,
 * and its data path: a veth pair routed by the host's kernel, or pasta copying in user space),
 * and the same through the control plane's egress proxy, against the same download by a host
 * process: MIB MiB from a "LAN host" (a network namespace of the bench's own, on 198.18.x) that
 * the operator's policy allows. Taken in turns, ROUNDS times each, with curl on all sides; the
 * ratios of the medians are the figures, one pair per data path.
 */
export async function egressDownload(ctx: BenchContext): Promise<FigureResult> {
  const lan = new LanHost();
  await lan.start();
  const url = `http://${lan.address}:8080/blob?mib=${MIB}`;
  const results: LinkResult[] = [];
  try {
    for (const link of LINKS) {
      const measured = await measureLink(link, lan, url);
      if (measured) results.push(measured);
      else ctx.log(`egress download: the ${link} data path is not usable here`);
    }
  } finally {
    await lan.stop();
  }
  const rate = (seconds: number[]) => MIB / median(seconds);
  const rows = results.map(({ link, sandboxS, proxiedS, proxyTicks, hostS }) => {
    const inside = rate(sandboxS);
    const proxied = rate(proxiedS);
    const host = rate(hostS);
    const ratio = inside / host;
    const proxiedRatio = proxied / host;
    const proxyCpuS = median(proxyTicks) / CLK_TCK;
    ctx.log(
      `egress download (${link}): sandbox ${inside.toFixed(0)} MiB/s, through the proxy ${proxied.toFixed(0)} MiB/s, host ${host.toFixed(0)} MiB/s (${ratio.toFixed(2)}×, ${proxiedRatio.toFixed(2)}×)`,
    );
    return {
      link,
      data: {
        sandbox_seconds: sandboxS,
        proxied_seconds: proxiedS,
        host_seconds: hostS,
        sandbox_mib_s: Math.round(inside),
        proxied_mib_s: Math.round(proxied),
        host_mib_s: Math.round(host),
        ratio: Math.round(ratio * 100) / 100,
        proxied_ratio: Math.round(proxiedRatio * 100) / 100,
        proxied_control_plane_cpu_s: proxyCpuS,
      },
      rows: [
        {
          figure: "Egress download",
          runtime: `process (${link})`,
          measure: `${MIB} MiB from an allowed LAN host, sandbox (through its enforcer) / host process, median of ${ROUNDS}`,
          value: `${inside.toFixed(0)} / ${host.toFixed(0)} MiB/s = ${ratio.toFixed(2)}×`,
          target: `≥ ${TARGET_RATIO}×`,
          met: ratio >= TARGET_RATIO,
        },
        {
          figure: "Egress download (proxy)",
          runtime: `process (${link})`,
          measure: `the same through the control plane's egress proxy (curl with the sandbox's proxy variables) / host process, median of ${ROUNDS}`,
          value: `${proxied.toFixed(0)} / ${host.toFixed(0)} MiB/s = ${proxiedRatio.toFixed(2)}×; control plane ${proxyCpuS.toFixed(2)} s CPU per ${MIB} MiB`,
        },
      ],
    };
  });
  return {
    key: "egress_download",
    data: {
      mib: MIB,
      rounds: ROUNDS,
      ...Object.fromEntries(rows.map(({ link, data }) => [link, data])),
    },
    rows: rows.flatMap((row) => row.rows),
    notes: [
      `**Egress download**: ${MIB} MiB over HTTP from a network namespace of the bench's own on ` +
        "198.18.x, which `SANDBOX_EGRESS_ALLOW` opens; curl inside a process sandbox (own " +
        "namespace, the nftables enforcer, and its data path: `veth`, the host kernel's routing " +
        "and NAT, or `pasta`, a user-space copy; `--noproxy`), the same through the control " +
        "plane's egress proxy, and curl on the host, in turns.",
    ],
  };
}

/** The rounds through one data path, or null where the control plane cannot use it. */
async function measureLink(link: Link, lan: LanHost, url: string): Promise<LinkResult | null> {
  const cp = await startControlPlane({
    runtime: "process",
    env: { SANDBOX_EGRESS_ALLOW: `${lan.address}:8080`, PROCESS_NETWORK_LINK: link },
  });
  try {
    const health = await cp.api("GET", "/health");
    if (health.body?.network !== "own") return null;
    const created = await cp.api("POST", "/api/v1/sandboxes", {});
    if (created.status !== 201) throw new Error(`start: ${created.status}`);
    const sandbox: Json = await waitForStatus(cp, created.body.id, "RUNNING");
    const result: LinkResult = { link, sandboxS: [], proxiedS: [], proxyTicks: [], hostS: [] };
    for (let round = 0; round < ROUNDS; round++) {
      result.hostS.push(Number((await exec("/bin/sh", ["-c", curlCommand(url)])).stdout));
      result.sandboxS.push(await runInSandbox(sandbox, curlCommand(url)));
      const before = cpuTicks(cp.pid);
      result.proxiedS.push(await runInSandbox(sandbox, curlCommand(url, true)));
      result.proxyTicks.push(cpuTicks(cp.pid) - before);
    }
    await cp.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
    return result;
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

/** Runs `command` in the sandbox through its agent server; its stdout as a number. */
async function runInSandbox(sandbox: Json, command: string): Promise<number> {
  const res = await fetch(`${sandbox.agent_server_url}/api/bash/execute_bash_command`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-api-key": sandbox.session_api_key },
    body: JSON.stringify({ command, timeout: 120 }),
  });
  const output = (await res.json()) as { exit_code: number; stdout: string; stderr: string };
  if (output.exit_code !== 0) throw new Error(`in the sandbox: ${output.stderr || output.stdout}`);
  return Number(output.stdout);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
