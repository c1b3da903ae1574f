import type { OperatorEgressPolicy } from "@sandbox-server/egress";
import type { RuntimeLogger, SandboxResources } from "../types";
import { type DockerConnection, dockerConnectionFromHost } from "./docker-connection";
import type { HostFirewallMode } from "./host-firewall";
import sandboxImage from "./sandbox-image.json";

export interface DockerRuntimeOptions {
  /**
   * How to reach the daemon: `dockerConnectionFromHost(DOCKER_HOST, {tlsVerify, certPath, ...})`.
   * Default: the local socket `/var/run/docker.sock`.
   */
  docker?: DockerConnection;
  /** Image for sandboxes whose start options name none. */
  image?: string;
  /**
   * Names the control plane owning the containers (the managed label's value, default
   * "default"). Containers of other instances on the same daemon are invisible to list() and
   * never reconciled away as orphans.
   */
  instance?: string;
  /**
   * Name of the bridge network the sandboxes join (default `sandbox-server-<instance>`). The
   * runtime creates it on first use, labelled as the instance's, with inter-container traffic
   * off; an existing network of that name must be such a network of this instance.
   */
  network?: string;
  /**
   * Whether the runtime adds host firewall rules that keep sandboxes away from the host's own
   * addresses (see host-firewall.ts). Default `auto`: where it can, else a warning.
   */
  hostFirewall?: HostFirewallMode;
  /**
   * Address on the daemon's machine the agent server's port is published on, and the control
   * plane reaches it at (default 127.0.0.1: the daemon runs on this machine). A remote daemon's
   * address on a network the control plane shares with it (see multi-host-runtime.ts).
   */
  publishAddress?: string;
  /** OCI runtime of the containers (DOCKER_RUNTIME, e.g. `runsc`); default: the daemon's. */
  ociRuntime?: string;
  /** Limits for sandboxes whose start options leave them out. */
  defaultResources?: SandboxResources;
  /** Budget of the /health probe made by `inspect` (default 1000 ms). */
  probeTimeoutMs?: number;
  /** How long resume waits for /health before it rejects (default 30 s). */
  resumeTimeoutMs?: number;
  /** Grace between SIGTERM and SIGKILL on delete (default 5 s). */
  stopTimeoutSeconds?: number;
  logger?: RuntimeLogger;
  /**
   * Sandboxes' egress: the operator's exceptions to the refused ranges (SANDBOX_EGRESS_ALLOW;
   * default none), and how names resolve (default: as this host resolves them; tests answer
   * their own names). Enforced where the containers' network namespaces can be entered (see
   * container-egress.ts).
   */
  egress?: {
    operator: OperatorEgressPolicy;
    resolveName?: (name: string) => Promise<string[] | null>;
  };
}

/**
 * Built by `npm run image` (tooling/image/build-image.sh). sandbox-image.json is the one definition
 * of the name: the core's built-in spec, the server's SANDBOX_IMAGE default and the tests use this
 * constant; the shell tooling and tooling/dev/start.mjs read the same file.
 */
export const DEFAULT_SANDBOX_IMAGE = `${sandboxImage.repository}:${sandboxImage.tag}`;

/** Where the agent server listens inside every container (the image's CMD). */
export const AGENT_SERVER_PORT = 8000;

/** Enough for an agent and its commands, small enough that one sandbox cannot starve the host. */
export const DEFAULT_RESOURCES: Required<SandboxResources> = { cpu: 1, memoryMb: 1024, pids: 512 };

export const DEFAULT_DOCKER_OPTIONS: DockerConnection = dockerConnectionFromHost(undefined);
