import { constants } from "node:os";
import type Dockerode from "dockerode";
import type { RuntimeState } from "../types";
import { readUserLabels } from "./labels";
import { AGENT_SERVER_PORT } from "./options";

/** What the container itself says, before any /health probe. */
export interface ContainerObservation {
  /** `running` here means only "the container runs"; the caller probes /health to confirm. */
  state: Exclude<RuntimeState, "missing">;
  agentServerUrl: string | null;
  detail: string | null;
  labels: Record<string, string>;
}

export function observeContainer(
  info: Dockerode.ContainerInspectInfo,
  publishAddress = LOOPBACK,
): ContainerObservation {
  const labels = readUserLabels(info.Config.Labels ?? {});
  const status = info.State.Status;
  // Kept while paused too: the port stays bound, and the URL is the same after unpause.
  const agentServerUrl = readAgentServerUrl(info, publishAddress);
  if (status === "paused" || (status === "running" && info.State.Paused)) {
    return { state: "paused", agentServerUrl, detail: null, labels };
  }
  switch (status) {
    case "running":
      return { state: "running", agentServerUrl, detail: null, labels };
    case "created":
    case "restarting":
      return { state: "starting", agentServerUrl: null, detail: `container is ${status}`, labels };
    case "removing": {
      const detail = `${describeExit(info)}; the container is being removed`;
      return { state: "exited", agentServerUrl: null, detail, labels };
    }
    default:
      // "exited" and "dead"
      return { state: "exited", agentServerUrl: null, detail: describeExit(info), labels };
  }
}

const LOOPBACK = "127.0.0.1";

/**
 * The agent server's URL through the port Docker picked on the publish address (loopback, or the
 * address a remote Docker host is reached at); null when not published there.
 */
export function readAgentServerUrl(
  info: Dockerode.ContainerInspectInfo,
  publishAddress = LOOPBACK,
): string | null {
  const bindings: unknown = info.NetworkSettings.Ports?.[`${AGENT_SERVER_PORT}/tcp`];
  if (!Array.isArray(bindings)) return null;
  const host = publishAddress.includes(":") ? `[${publishAddress}]` : publishAddress;
  for (const binding of bindings) {
    if (isBindingOn(binding, publishAddress)) return `http://${host}:${binding.HostPort}`;
  }
  return null;
}

function isBindingOn(
  value: unknown,
  address: string,
): value is { HostIp: string; HostPort: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    "HostIp" in value &&
    value.HostIp === address &&
    "HostPort" in value &&
    typeof value.HostPort === "string" &&
    value.HostPort !== ""
  );
}

/** Why a container stopped, in words an operator can act on (OOM named explicitly). */
export function describeExit(info: Dockerode.ContainerInspectInfo): string {
  const { ExitCode: code, OOMKilled: oomKilled, Error: error, FinishedAt: finishedAt } = info.State;
  const parts = [`container exited with code ${code}${describeSignal(code)}`];
  if (oomKilled) {
    const limitMb = Math.round((info.HostConfig.Memory ?? 0) / (1024 * 1024));
    const limit = limitMb > 0 ? ` of ${limitMb} MiB` : "";
    parts.push(`killed by the OOM killer: out of memory (memory limit${limit} exceeded)`);
  }
  if (error) parts.push(`docker: ${error}`);
  if (finishedAt && !finishedAt.startsWith("0001-")) parts.push(`at ${finishedAt}`);
  return parts.join("; ");
}

// Exit codes above 128 are the shell/init convention for "killed by signal (code - 128)".
function describeSignal(code: number): string {
  if (code <= 128) return "";
  const signal = Object.entries(constants.signals).find(([, number]) => number === code - 128);
  return signal ? ` (${signal[0]})` : "";
}
