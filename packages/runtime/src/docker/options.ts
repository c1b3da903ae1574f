import type Dockerode from "dockerode";
import type { RuntimeLogger, SandboxResources } from "../types";

export interface DockerRuntimeOptions {
  /**
   * How to reach the daemon (socketPath, or host/port/protocol). Default: the local socket
   * `/var/run/docker.sock`; the app's env.ts decides whether DOCKER_HOST overrides it.
   */
  docker?: Dockerode.DockerOptions;
  /** Image for sandboxes whose start options name none. */
  image?: string;
  /**
   * Names the control plane owning the containers (the managed label's value, default
   * "default"). Containers of other instances on the same daemon are invisible to list() and
   * never reconciled away as orphans.
   */
  instance?: string;
  /**
   * Docker network the containers join (default: Docker's default bridge). It must allow a
   * published port, so `none` cannot work: the control plane reaches the agent server through it.
   */
  network?: string;
  /** Limits for sandboxes whose start options leave them out. */
  defaultResources?: SandboxResources;
  /** Budget of the /health probe made by `inspect` (default 1000 ms). */
  probeTimeoutMs?: number;
  /** How long resume waits for /health before it rejects (default 30 s). */
  resumeTimeoutMs?: number;
  /** Grace between SIGTERM and SIGKILL on delete (default 5 s). */
  stopTimeoutSeconds?: number;
  logger?: RuntimeLogger;
}

/** Built by `npm run image` (scripts/build-image.sh). */
export const DEFAULT_SANDBOX_IMAGE = "sandbox-server/agent-server:latest";

/** Where the agent server listens inside every container (the image's CMD). */
export const AGENT_SERVER_PORT = 8000;

/** Enough for an agent and its commands, small enough that one sandbox cannot starve the host. */
export const DEFAULT_RESOURCES: Required<SandboxResources> = { cpu: 1, memoryMb: 1024, pids: 512 };

export const DEFAULT_DOCKER_OPTIONS: Dockerode.DockerOptions = {
  socketPath: "/var/run/docker.sock",
};

export const silentLogger: RuntimeLogger = { info() {}, warn() {}, error() {}, debug() {} };
