import { existsSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import {
  type DockerConnection,
  type DockerHostSettings,
  describeDockerConnection,
  dockerConnectionFromHost,
} from "./docker-connection";

/** One Docker host of DOCKER_HOSTS. */
export interface DockerHostConfig {
  /** Names the host in logs, placement and `status_detail` ([A-Za-z0-9_.-]). */
  name: string;
  connection: DockerConnection;
  /** The endpoint as written in DOCKER_HOSTS, for messages. */
  endpoint: string;
  /**
   * The address the host's containers' ports are published on and reached at from the control
   * plane: 127.0.0.1 for a daemon on this machine, the host's address on a shared network for
   * another machine.
   */
  publishAddress: string;
  /** Running sandboxes the host takes at most; undefined: one per 512 MiB of its memory. */
  maxSandboxes?: number;
  /**
   * The daemon is reached over the network (tcp://, ssh://): its bridges are on another machine,
   * so this process cannot set that machine's firewall.
   */
  remote: boolean;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/**
 * Reads DOCKER_HOSTS: comma-separated entries `name=endpoint[@address][;max=N]`.
 * - `endpoint` is read as DOCKER_HOST is (unix:///path, tcp://host:port, ssh://[user@]host);
 *   tcp:// uses TLS per DOCKER_TLS_VERIFY / DOCKER_TLS, with the files of
 *   `DOCKER_CERT_PATH/<name>/` when that directory exists, else of DOCKER_CERT_PATH.
 * - `address` (after the last `@`) is where the host publishes the agent servers' ports and the
 *   control plane reaches them: an IP address. Optional for unix:// (127.0.0.1), required
 *   otherwise.
 * - `max=N` caps the running sandboxes placed on the host.
 * Throws one message naming the entry and the problem.
 */
export function parseDockerHosts(
  value: string,
  settings: DockerHostSettings = {},
): DockerHostConfig[] {
  const entries = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) throw invalid(value, "it lists no host");
  const hosts = entries.map((entry) => parseEntry(entry, settings));
  const seen = new Set<string>();
  for (const host of hosts) {
    if (seen.has(host.name)) throw invalid(value, `host name ${host.name} appears twice`);
    seen.add(host.name);
  }
  return hosts;
}

function parseEntry(entry: string, settings: DockerHostSettings): DockerHostConfig {
  const equals = entry.indexOf("=");
  if (equals <= 0) throw invalid(entry, "write name=endpoint@address");
  const name = entry.slice(0, equals).trim();
  if (!NAME.test(name))
    throw invalid(entry, `host name ${JSON.stringify(name)}: use [A-Za-z0-9_.-]`);
  const [target = "", ...options] = entry.slice(equals + 1).split(";");
  const at = target.lastIndexOf("@");
  const scheme = target.includes("://") ? target.slice(0, target.indexOf("://")) : "tcp";
  let endpoint = target.trim();
  let address: string | undefined;
  if (at > target.indexOf("://") + 2 && at >= 0) {
    endpoint = target.slice(0, at).trim();
    address = target.slice(at + 1).trim();
  }
  const remote = scheme.toLowerCase() !== "unix";
  if (address === undefined) {
    if (remote)
      throw invalid(
        entry,
        `${scheme}:// hosts need the address their ports are reached at: ${name}=${endpoint}@ADDRESS`,
      );
    address = "127.0.0.1";
  }
  if (isIP(address) === 0) throw invalid(entry, `${JSON.stringify(address)} is not an IP address`);
  let connection: DockerConnection;
  try {
    connection = dockerConnectionFromHost(endpoint, hostSettings(name, settings));
  } catch (error) {
    throw invalid(entry, error instanceof Error ? error.message : String(error));
  }
  const host: DockerHostConfig = { name, connection, endpoint, publishAddress: address, remote };
  for (const option of options) {
    const match = /^\s*max\s*=\s*(\d+)\s*$/.exec(option);
    const max = match ? Number(match[1]) : Number.NaN;
    if (!(Number.isSafeInteger(max) && max > 0)) {
      throw invalid(entry, `unknown option ${JSON.stringify(option)} (only max=N, N > 0)`);
    }
    host.maxSandboxes = max;
  }
  return host;
}

/** A host's own certificates in DOCKER_CERT_PATH/<name>/ win over the shared ones. */
function hostSettings(name: string, settings: DockerHostSettings): DockerHostSettings {
  if (!settings.certPath) return settings;
  const own = path.join(settings.certPath, name);
  return existsSync(own) ? { ...settings, certPath: own } : settings;
}

/** How a host is named in logs and status details: `h2 (tcp://10.0.0.2:2375)`. */
export function describeDockerHost(host: DockerHostConfig): string {
  return `${host.name} (${describeDockerConnection(host.connection)})`;
}

function invalid(entry: string, why: string): Error {
  return new Error(`invalid DOCKER_HOSTS entry ${JSON.stringify(entry)}: ${why}`);
}
