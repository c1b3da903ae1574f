import type Dockerode from "dockerode";
import type { SandboxResources, StartSandboxOptions } from "../types";
import { containerNameFor, toContainerLabels } from "./labels";
import { AGENT_SERVER_PORT } from "./options";

export interface ContainerDefaults {
  image: string;
  /** Value of the managed label: which control plane owns the container. */
  instance: string;
  network?: string;
  /** HostConfig.Runtime (DOCKER_RUNTIME); the daemon's default when undefined. */
  ociRuntime?: string;
  resources: Required<SandboxResources>;
  /** Host address the agent server's port is published on (default 127.0.0.1). */
  publishAddress?: string;
}

// Root inside a custom image keeps what it needs to manage its own files and users; raw sockets
// (ARP/packet spoofing on the bridge), mknod, chroot, audit and file-capability tricks are gone.
// The default image runs as the unprivileged `agent` user, for whom these are inert anyway.
const KEPT_CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID"];

const MIB = 1024 * 1024;

/** The create-container request for one sandbox; pure so it can be checked without a daemon. */
export function buildContainerConfig(
  options: StartSandboxOptions,
  defaults: ContainerDefaults,
): Dockerode.ContainerCreateOptions {
  const resources = { ...defaults.resources, ...definedOnly(options.resources ?? {}) };
  assertResources(resources);
  const memoryBytes = Math.round(resources.memoryMb * MIB);
  const portKey = `${AGENT_SERVER_PORT}/tcp`;
  const env: Record<string, string> = { ...options.env, SESSION_API_KEY: options.sessionApiKey };
  if (options.workingDir) env.WORKSPACE_DIR = options.workingDir;

  return {
    name: containerNameFor(options.sandboxId),
    Image: options.image ?? defaults.image,
    ...(options.command ? { Cmd: options.command } : {}),
    ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
    Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
    Labels: toContainerLabels(options, defaults.instance),
    ExposedPorts: { [portKey]: {} },
    HostConfig: {
      // Loopback (unless the host is reached at another address), ephemeral port.
      PortBindings: {
        [portKey]: [{ HostIp: defaults.publishAddress ?? "127.0.0.1", HostPort: "" }],
      },
      ...(defaults.network ? { NetworkMode: defaults.network } : {}),
      ...(defaults.ociRuntime ? { Runtime: defaults.ociRuntime } : {}),
      Memory: memoryBytes,
      // Equal to Memory: no swap on top, so the limit is the limit and OOM comes promptly.
      MemorySwap: memoryBytes,
      NanoCpus: Math.round(resources.cpu * 1e9),
      PidsLimit: resources.pids,
      // An init as PID 1 reaps the zombies that agents' shell commands leave behind.
      Init: true,
      Privileged: false,
      CapDrop: ["ALL"],
      CapAdd: KEPT_CAPABILITIES,
      SecurityOpt: ["no-new-privileges"],
      // The control plane decides about restarts (resume), never the daemon behind its back.
      RestartPolicy: { Name: "no" },
      // A chatty agent must not be able to fill the host's disk with container logs.
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "2" } },
    },
  };
}

function assertResources(resources: Required<SandboxResources>): void {
  if (!(resources.memoryMb >= 6)) throw new Error("memoryMb must be at least 6 (Docker's minimum)");
  if (!(resources.cpu > 0)) throw new Error("cpu must be greater than 0");
  if (!(Number.isInteger(resources.pids) && resources.pids > 0)) {
    throw new Error("pids must be a positive integer");
  }
}

function definedOnly(resources: SandboxResources): SandboxResources {
  return Object.fromEntries(Object.entries(resources).filter(([, value]) => value !== undefined));
}
