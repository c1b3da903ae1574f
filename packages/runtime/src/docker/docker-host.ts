import type Dockerode from "dockerode";
import type { RuntimeLogger } from "../types";
import { type DockerHostConfig, describeDockerHost } from "./docker-hosts";
import { DockerRuntime } from "./docker-runtime";
import { createDockerClient } from "./dockerode";
import { type HostHealth, type HostProbeOptions, nextHealth, pingDaemon } from "./host-health";
import { MANAGED_LABEL, SANDBOX_ID_LABEL } from "./labels";
import type { DockerRuntimeOptions } from "./options";
import { defaultMaxSandboxes, type HostLoad } from "./placement";

/** A change of a host's health that the runtime acts on. */
export type HealthChange = "went-down" | "came-up" | null;

/** Thrown by work on a host that stopped answering meanwhile; the message names the host. */
export class HostDownError extends Error {}

/**
 * One Docker host of DOCKER_HOSTS: its DockerRuntime (which does the sandbox work there), a
 * connection of its own for pings and load queries, and what the control plane knows of its
 * health. Requests to a host are bounded, so a machine that stopped answering holds nothing up.
 */
export class DockerHost {
  readonly name: string;
  readonly runtime: DockerRuntime;
  health: HostHealth = { state: "unknown" };
  /** Starts placed here and not yet finished (counted by placement before Docker shows them). */
  pendingStarts = 0;
  pendingMemoryBytes = 0;
  /** Sandboxes deleted while the host was down: removed when it answers again. */
  readonly pendingDeletes = new Set<string>();
  private readonly docker: Dockerode;
  private readonly memoryByContainer = new Map<string, number>();
  private memoryTotalBytes: number | null = null;
  private readonly downListeners = new Set<(error: HostDownError) => void>();

  constructor(
    readonly config: DockerHostConfig,
    runtimeOptions: DockerRuntimeOptions,
    private readonly instance: string,
    private readonly requestTimeoutMs: number,
  ) {
    this.name = config.name;
    this.runtime = new DockerRuntime({
      ...runtimeOptions,
      docker: config.connection,
      publishAddress: config.publishAddress,
      logger: withHost(runtimeOptions.logger, config.name),
    });
    this.docker = createDockerClient(config.connection);
  }

  get isUp(): boolean {
    return this.health.state === "up";
  }

  /** Not known to be down: up, or not probed yet (worth asking). */
  get isReachable(): boolean {
    return this.health.state !== "down";
  }

  describe(): string {
    return describeDockerHost(this.config);
  }

  /** Why nothing on this host can be reached now; names the host (it ends up in status_detail). */
  downDetail(): string {
    const health = this.health;
    if (health.state !== "down") return `Docker host ${this.describe()} is not answering`;
    const since = new Date(health.since).toISOString();
    return `Docker host ${this.describe()} stopped answering at ${since} (${health.reason})`;
  }

  /** Pings the daemon and moves its health; says whether the host went down or came up. */
  async probe(options: HostProbeOptions, now: () => number): Promise<HealthChange> {
    const failure = await pingDaemon(this.docker, options.timeoutMs);
    const before: HostHealth["state"] = this.health.state;
    const after = nextHealth(this.health, failure, now(), options);
    this.health = after;
    if (before !== "down" && after.state === "down") {
      const error = new HostDownError(this.downDetail());
      for (const listener of this.downListeners) listener(error);
      return "went-down";
    }
    if (before !== "up" && after.state === "up") return "came-up";
    return null;
  }

  /** `work`, unless the host goes down first: then a HostDownError naming it. */
  whileUp<T>(work: Promise<T>): Promise<T> {
    if (this.health.state === "down") {
      work.catch(() => undefined);
      return Promise.reject(new HostDownError(this.downDetail()));
    }
    let listener: ((error: HostDownError) => void) | undefined;
    const down = new Promise<never>((_, reject) => {
      listener = reject;
      this.downListeners.add(reject);
    });
    return Promise.race([work, down]).finally(() => {
      if (listener) this.downListeners.delete(listener);
    });
  }

  /** `work` bounded by the request timeout (a host that went silent answers nothing). */
  bounded<T>(work: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Docker host ${this.describe()} did not answer ${what} within ${this.requestTimeoutMs} ms`,
            ),
          ),
        this.requestTimeoutMs,
      );
    });
    work.catch(() => undefined);
    return this.whileUp(Promise.race([work, timedOut])).finally(() => clearTimeout(timer));
  }

  /** Whether the sandbox's container is on this host (by its labels). */
  async holds(sandboxId: string): Promise<boolean> {
    const found = await this.bounded(
      this.docker.listContainers({
        all: true,
        filters: {
          label: [`${MANAGED_LABEL}=${this.instance}`, `${SANDBOX_ID_LABEL}=${sandboxId}`],
        },
      }),
      "a container lookup",
    );
    return found.length > 0;
  }

  /** What the host holds now: running and paused sandboxes (and starts under way), memory. */
  async load(): Promise<HostLoad> {
    const containers = await this.bounded(
      this.docker.listContainers({
        filters: {
          label: [`${MANAGED_LABEL}=${this.instance}`],
          status: ["running", "paused", "restarting", "created"],
        },
      }),
      "a container listing",
    );
    const total = await this.readMemoryTotal();
    let memoryBytes = this.pendingMemoryBytes;
    const seen = new Set<string>();
    for (const container of containers) {
      seen.add(container.Id);
      memoryBytes += await this.memoryOf(container.Id);
    }
    for (const id of this.memoryByContainer.keys())
      if (!seen.has(id)) this.memoryByContainer.delete(id);
    return {
      name: this.name,
      sandboxes: containers.length + this.pendingStarts,
      maxSandboxes: this.config.maxSandboxes ?? defaultMaxSandboxes(total),
      memoryBytes,
      memoryTotalBytes: total,
    };
  }

  private async readMemoryTotal(): Promise<number> {
    if (this.memoryTotalBytes === null) {
      const info = (await this.bounded(this.docker.info(), "docker info")) as { MemTotal?: number };
      this.memoryTotalBytes =
        typeof info.MemTotal === "number" && info.MemTotal > 0 ? info.MemTotal : 0;
    }
    return this.memoryTotalBytes;
  }

  /** A container's memory limit never changes: asked once per container. */
  private async memoryOf(containerId: string): Promise<number> {
    const known = this.memoryByContainer.get(containerId);
    if (known !== undefined) return known;
    try {
      const info = await this.bounded(
        this.docker.getContainer(containerId).inspect(),
        "an inspect",
      );
      const memory = info.HostConfig.Memory ?? 0;
      this.memoryByContainer.set(containerId, memory);
      return memory;
    } catch (error) {
      if (error instanceof HostDownError) throw error;
      return 0; // removed since the listing
    }
  }
}

/** The host's name on every line its runtime logs. */
function withHost(logger: RuntimeLogger | undefined, name: string): RuntimeLogger | undefined {
  if (logger === undefined) return undefined;
  return {
    info: (obj, msg) => logger.info({ dockerHost: name, ...obj }, msg),
    warn: (obj, msg) => logger.warn({ dockerHost: name, ...obj }, msg),
    error: (obj, msg) => logger.error({ dockerHost: name, ...obj }, msg),
    debug: (obj, msg) => logger.debug({ dockerHost: name, ...obj }, msg),
  };
}
