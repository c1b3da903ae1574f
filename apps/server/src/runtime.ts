import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type DockerConnection,
  type DockerHostSettings,
  DockerRuntime,
  describeDockerConnection,
  describeDockerHost,
  detectBwrap,
  detectCgroups,
  detectNetns,
  dockerConnectionFromHost,
  errorMessage,
  isDockerAvailable,
  MultiHostRuntime,
  ProcessRuntime,
  type ProcessRuntimeOptions,
  parseDockerHosts,
  type SandboxRuntime,
} from "@sandbox-server/runtime";
import type { Logger } from "pino";
import { ConfigError } from "./config-error";
import type { Env } from "./env";

/** The operator's exceptions to the address ranges sandboxes are refused (SANDBOX_EGRESS_ALLOW). */
export type OperatorEgress = NonNullable<ProcessRuntimeOptions["egress"]>["operator"];

/** A plain start-up line for the operator (shown with the banner), beside the JSON log. */
export type StartupNotice = (line: string) => void;

export interface SelectRuntimeOptions {
  /** Default: no exceptions. */
  operatorEgress?: OperatorEgress;
  /** Default: the lines are dropped. */
  notice?: StartupNotice;
}

/**
 * `auto`: Docker when a daemon answers, else processes. The choice is logged; a Docker endpoint
 * set explicitly (DOCKER_HOST, an entry of DOCKER_HOSTS) that does not answer is also named in a
 * plain start-up line, so that a typo is not silently a process runtime.
 */
export async function selectRuntime(
  env: Env,
  log: Logger,
  options: SelectRuntimeOptions = {},
): Promise<SandboxRuntime> {
  const notice = options.notice ?? (() => undefined);
  if ((env.DOCKER_HOSTS ?? "").trim() !== "") return multiHostRuntime(env, log, options);
  const docker = dockerConnection(env);
  let kind = env.SANDBOX_RUNTIME;
  if (kind === "auto") {
    kind = (await isDockerAvailable({ docker })) ? "docker" : "process";
    log.info(
      { runtime: kind },
      `runtime auto-selected: ${kind === "docker" ? "Docker daemon answered" : "no Docker daemon, using processes"}`,
    );
    const explicit = (env.DOCKER_HOST ?? "").trim();
    if (kind === "process" && explicit !== "") {
      const line = `DOCKER_HOST=${explicit} does not answer: sandboxes run as processes; fix DOCKER_HOST, or set SANDBOX_RUNTIME=docker to refuse to start instead`;
      log.warn({ dockerHost: describeDockerConnection(docker) }, line);
      notice(line);
    }
  }
  const runtimeLog = log.child({ component: "runtime" });
  if (
    kind === "docker" &&
    env.SANDBOX_RUNTIME === "docker" &&
    !(await isDockerAvailable({ docker }))
  ) {
    throw new ConfigError(
      `SANDBOX_RUNTIME=docker but no Docker daemon answers at ${describeDockerConnection(docker)}; start Docker, fix DOCKER_HOST, or use SANDBOX_RUNTIME=process`,
    );
  }
  if (kind === "docker") {
    const runtime = new DockerRuntime({
      docker,
      image: env.SANDBOX_IMAGE,
      instance: instanceId(env.DATA_DIR),
      logger: runtimeLog,
      hostFirewall: env.DOCKER_HOST_FIREWALL,
      ...(env.DOCKER_RUNTIME ? { ociRuntime: env.DOCKER_RUNTIME } : {}),
      egress: { operator: options.operatorEgress ?? { allow: [] } },
    });
    try {
      await runtime.prepare();
    } catch (error) {
      throw new ConfigError(`Docker runtime cannot be prepared: ${errorMessage(error)}`);
    }
    return runtime;
  }
  const bwrap = env.PROCESS_SANDBOXING === "none" ? null : detectBwrap();
  if (env.PROCESS_SANDBOXING === "auto" && bwrap && !bwrap.usable) {
    log.warn({ reason: bwrap.reason }, "process sandboxes are NOT isolated: bubblewrap unusable");
  }
  let netnsUsable = false;
  if (bwrap?.usable) {
    const netns = detectNetns();
    netnsUsable = netns.usable;
    if (!netns.usable) {
      log.warn(
        { reason: netns.reason },
        "process sandboxes share the host's network (no namespace of their own, no egress policy enforced): they reach its loopback services and other sandboxes",
      );
    }
  }
  const cgroups = await detectCgroups();
  if (!cgroups.limits.usable) {
    log.warn(
      { reason: cgroups.limits.reason },
      "process sandboxes' pids and memory limits are not enforced (cgroups unusable); a cpu limit never is",
    );
  }
  if (!cgroups.cpu.usable) {
    log.info(
      { reason: cgroups.cpu.reason },
      "process sandboxes share the CPU with the control plane as equals (no cpu cgroup): each weighs as much as the whole control plane",
    );
  }
  try {
    const runtime = new ProcessRuntime({
      rootDir: path.resolve(env.DATA_DIR, "sandboxes"),
      agentServerEntry: path.resolve(env.AGENT_SERVER_ENTRY),
      logger: runtimeLog,
      sandboxing: env.PROCESS_SANDBOXING,
      networkLink: env.PROCESS_NETWORK_LINK,
      sandboxCpuWeight: env.PROCESS_SANDBOX_CPU_WEIGHT,
      egress: { operator: options.operatorEgress ?? { allow: [] } },
    });
    if (runtime.networkLink) {
      log.info({ link: runtime.networkLink }, "process sandboxes' network namespaces linked");
    } else if (runtime.network === "shared" && netnsUsable) {
      log.warn(
        { link: env.PROCESS_NETWORK_LINK },
        "process sandboxes share the host's network: no link for their namespaces works here (veth needs IPv4 forwarding on; pasta needs passt)",
      );
    }
    return runtime;
  } catch (error) {
    throw new ConfigError(errorMessage(error));
  }
}

/**
 * DOCKER_HOSTS: sandboxes over several Docker daemons (see packages/runtime's MultiHostRuntime).
 * It means the docker runtime; DOCKER_HOST is then not used.
 */
async function multiHostRuntime(
  env: Env,
  log: Logger,
  options: SelectRuntimeOptions,
): Promise<SandboxRuntime> {
  if (env.SANDBOX_RUNTIME === "process") {
    throw new ConfigError(
      "DOCKER_HOSTS is set but SANDBOX_RUNTIME=process; unset one of them (DOCKER_HOSTS needs the docker runtime)",
    );
  }
  let runtime: MultiHostRuntime;
  try {
    const hosts = parseDockerHosts(env.DOCKER_HOSTS ?? "", dockerHostSettings(env));
    runtime = new MultiHostRuntime({
      hosts,
      image: env.SANDBOX_IMAGE,
      instance: instanceId(env.DATA_DIR),
      logger: log.child({ component: "runtime" }),
      hostFirewall: env.DOCKER_HOST_FIREWALL,
      ...(env.DOCKER_RUNTIME ? { ociRuntime: env.DOCKER_RUNTIME } : {}),
      egress: { operator: options.operatorEgress ?? { allow: [] } },
    });
    log.info(
      { runtime: "docker", dockerHosts: hosts.map(describeDockerHost) },
      `sandboxes on ${hosts.length} Docker host(s) (DOCKER_HOSTS)${env.DOCKER_HOST ? "; DOCKER_HOST is not used" : ""}`,
    );
  } catch (error) {
    throw new ConfigError(errorMessage(error));
  }
  try {
    await runtime.prepare();
  } catch (error) {
    await runtime.close().catch(() => undefined);
    throw new ConfigError(`Docker runtime cannot be prepared: ${errorMessage(error)}`);
  }
  // Hosts down at start are tolerated (their sandboxes are adopted once they answer), but named.
  for (const host of runtime.hosts.filter((h) => !h.isUp)) {
    options.notice?.(
      `DOCKER_HOSTS: ${host.downDetail()}; sandboxes go to the other hosts until it answers`,
    );
  }
  return runtime;
}

/** DOCKER_HOST and its TLS companions, as the Docker CLI reads them. */
function dockerConnection(env: Env): DockerConnection {
  try {
    return dockerConnectionFromHost(env.DOCKER_HOST, dockerHostSettings(env));
  } catch (error) {
    throw new ConfigError(errorMessage(error));
  }
}

function dockerHostSettings(env: Env): DockerHostSettings {
  return {
    // The CLI treats any non-empty value as set.
    tlsVerify: (env.DOCKER_TLS_VERIFY ?? "") !== "",
    tls: (env.DOCKER_TLS ?? "") !== "",
    ...(env.DOCKER_CERT_PATH ? { certPath: env.DOCKER_CERT_PATH } : {}),
    ...(env.SSH_AUTH_SOCK ? { sshAuthSocket: env.SSH_AUTH_SOCK } : {}),
  };
}

/**
 * A stable name for this control plane (kept in its data directory), so that two control planes
 * on one Docker daemon never see — or reconcile away — each other's containers.
 */
export function instanceId(dataDir: string): string {
  const file = path.resolve(dataDir, "instance-id");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const id = `cp-${randomBytes(6).toString("hex")}`;
  writeFileSync(file, `${id}\n`);
  return id;
}
