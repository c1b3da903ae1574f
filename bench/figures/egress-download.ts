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

/**
 * A sandbox's download through its egress enforcer (own network namespace, pasta, the nftables
 * table) against the same download by a host process: MIB MiB from a "LAN host" (a network
 * namespace of the bench's own, on 198.18.x) that the operator's policy allows. Taken in turns,
 * ROUNDS times each, with curl on both sides; the ratio of the medians is the figure.
 */
export async function egressDownload(ctx: BenchContext): Promise<FigureResult> {
  const lan = new LanHost();
  await lan.start();
  const url = `http://${lan.address}:8080/blob?mib=${MIB}`;
  const cp = await startControlPlane({
    runtime: "process",
    env: { SANDBOX_EGRESS_ALLOW: `${lan.address}:8080` },
  });
  try {
    const created = await cp.api("POST", "/api/v1/sandboxes", {});
    if (created.status !== 201) throw new Error(`start: ${created.status}`);
    const sandbox: Json = await waitForStatus(cp, created.body.id, "RUNNING");
    const health = await cp.api("GET", "/health");
    if (health.body?.network !== "own") {
      throw new Error(
        `sandboxes here do not have a network of their own (${health.body?.network})`,
      );
    }
    const insideS: number[] = [];
    const proxiedS: number[] = [];
    /** The control plane's CPU during each proxied download (it carries the bytes). */
    const proxyTicks: number[] = [];
    const hostS: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      hostS.push(Number((await exec("/bin/sh", ["-c", curlCommand(url)])).stdout));
      insideS.push(await runInSandbox(sandbox, curlCommand(url)));
      const before = cpuTicks(cp.pid);
      proxiedS.push(await runInSandbox(sandbox, curlCommand(url, true)));
      proxyTicks.push(cpuTicks(cp.pid) - before);
    }
    const rate = (seconds: number[]) => MIB / median(seconds);
    const inside = rate(insideS);
    const proxied = rate(proxiedS);
    const host = rate(hostS);
    const ratio = inside / host;
    const proxiedRatio = proxied / host;
    const proxyCpuS = median(proxyTicks) / CLK_TCK;
    ctx.log(
      `egress download: sandbox ${inside.toFixed(0)} MiB/s, through the proxy ${proxied.toFixed(0)} MiB/s, host ${host.toFixed(0)} MiB/s (${ratio.toFixed(2)}×, ${proxiedRatio.toFixed(2)}×)`,
    );
    await cp.api("DELETE", `/api/v1/sandboxes/${sandbox.id}`);
    return {
      key: "egress_download",
      data: {
        mib: MIB,
        rounds: ROUNDS,
        sandbox_seconds: insideS,
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
          runtime: "process",
          measure: `${MIB} MiB from an allowed LAN host, sandbox (through its enforcer) / host process, median of ${ROUNDS}`,
          value: `${inside.toFixed(0)} / ${host.toFixed(0)} MiB/s = ${ratio.toFixed(2)}×`,
          target: `≥ ${TARGET_RATIO}×`,
          met: ratio >= TARGET_RATIO,
        },
        {
          figure: "Egress download (proxy)",
          runtime: "process",
          measure: `the same through the control plane's egress proxy (curl with the sandbox's proxy variables) / host process, median of ${ROUNDS}`,
          value: `${proxied.toFixed(0)} / ${host.toFixed(0)} MiB/s = ${proxiedRatio.toFixed(2)}×; control plane ${proxyCpuS.toFixed(2)} s CPU per ${MIB} MiB`,
        },
      ],
      notes: [
        `**Egress download**: ${MIB} MiB over HTTP from a network namespace of the bench's own on ` +
          "198.18.x, which `SANDBOX_EGRESS_ALLOW` opens; curl inside a process sandbox (own " +
          "namespace, pasta, the nftables enforcer; `--noproxy`), the same through the control " +
          "plane's egress proxy, and curl on the host, in turns.",
      ],
    };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
    await lan.stop();
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
