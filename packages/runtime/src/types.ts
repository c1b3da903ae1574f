import type { EgressDenial, SandboxEgressPolicy } from "@sandbox-server/egress";

/**
 * The port between the control plane and whatever runs sandboxes.
 * Implementations: ProcessRuntime (child processes) and DockerRuntime (containers).
 * The runtime is the truth about liveness; the control plane's store is the record of intent.
 */

export type RuntimeKind = "process" | "docker";

/**
 * How far a command inside a sandbox is kept from the host, the control plane and other sandboxes:
 * - `container`: a container (Docker), non-root, capabilities dropped, own network
 * - `namespaces`: processes under bubblewrap: own user, pid, ipc, uts and mount namespaces, a
 *   filesystem view of its own; the network is the sandbox's own or the host's (`network`)
 * - `none`: plain processes of the control plane's user, with its view of the machine
 */
export type IsolationLevel = "none" | "namespaces" | "container";

/**
 * Whose network a sandbox is on:
 * - `own`: a network namespace of its own (its own loopback; nothing of the host's loopback, its
 *   abstract Unix sockets or other sandboxes), egress through an enforcer of the sandbox's policy
 * - `shared`: the host's network namespace: whatever the host reaches, the sandbox reaches
 */
export type NetworkIsolation = "own" | "shared";

/** What the runtime observes about one sandbox. */
export type RuntimeState =
  | "starting" // launched, agent server not answering /health (yet, or again: `detail` says why)
  | "running" // agent server answers /health
  | "paused" // frozen (SIGSTOP / docker pause)
  | "exited" // process or container ended; `detail` says why (exit code, signal, OOM)
  | "missing"; // the runtime knows nothing of this sandbox

export interface SandboxResources {
  /** CPU cores (fractions allowed). */
  cpu?: number;
  memoryMb?: number;
  pids?: number;
}

export interface StartSandboxOptions {
  sandboxId: string;
  ownerId: string;
  specId: string;
  /** Key the agent server checks as X-Session-API-Key. */
  sessionApiKey: string;
  /** Extra environment for the agent server (spec initial_env + request env). */
  env: Record<string, string>;
  /** Docker image (docker runtime); ignored by the process runtime. */
  image?: string;
  /** Command override; the process runtime defaults to `node <agent-server bundle>`. */
  command?: string[];
  /** Working directory of the agent inside the sandbox. */
  workingDir?: string;
  resources?: SandboxResources;
  labels?: Record<string, string>;
  /** What the sandbox may connect to; absent means DEFAULT_SANDBOX_EGRESS. */
  egress?: SandboxEgressPolicy;
}

export interface RuntimeSandbox {
  sandboxId: string;
  state: RuntimeState;
  /**
   * Base URL of the agent server, reachable from the control plane: 127.0.0.1, or the address of
   * the Docker host it runs on (DOCKER_HOSTS).
   */
  agentServerUrl: string | null;
  /** Human-readable reason for `exited` (and for anything unusual). */
  detail: string | null;
  /** Labels given at start (owner, spec, ...), as recorded by the runtime. */
  labels: Record<string, string>;
}

/** The slice of pino a runtime logs through; the server passes its pino instance. */
export interface RuntimeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** Called with the same text `inspect` then reports as `detail`. */
export type SandboxExitListener = (sandboxId: string, detail: string) => void;

/**
 * `exit`: a sandbox ended without being asked (or its host stopped answering).
 * `recovered`: a sandbox the control plane may have marked failed runs again, because the Docker
 * host it lives on answers again; `detail` says so. Sent for every sandbox running on such a host.
 */
export type SandboxRuntimeEvent = "exit" | "recovered";

export interface SandboxRuntime {
  readonly kind: RuntimeKind;
  readonly isolation: IsolationLevel;
  /**
   * The agent server's port inside every sandbox when it is fixed (a container's, or in a network
   * namespace of the sandbox's own); absent, it is the port of the sandbox's agent server URL.
   * Port URLs never reach it.
   */
  readonly agentServerPort?: number;
  /** What else `isolation` includes or lacks here, in a sentence (the process runtime's seccomp filter). */
  readonly isolationDetail?: string;
  /** Optional: whose network sandboxes are on (a runtime without it does not say). */
  readonly network?: NetworkIsolation;
  /**
   * Launches the sandbox and returns at once (state `starting` or `running`). A sandbox whose
   * agent server died before it was even listening comes back `exited` with `detail`; it still
   * exists (resume retries it, delete removes it).
   */
  start(options: StartSandboxOptions): Promise<RuntimeSandbox>;
  /**
   * Optional: records the sandbox durably before it is launched (what to run, its secrets, no
   * process yet), so that a create can be acknowledged before the launch. Afterwards `inspect` and
   * `list` know it (`starting`), `start` with the same options launches it, and a control plane
   * restarted before that finds it `exited` and launches it with `resume`. Without it, a record
   * of the sandbox in the control plane's store is the only trace until `start` has created it.
   */
  register?(options: StartSandboxOptions): Promise<void>;
  /** Resolves once the agent server answers /health, or rejects after `timeoutMs`/on exit. */
  waitUntilReady(sandboxId: string, timeoutMs: number): Promise<RuntimeSandbox>;
  /** Current state, including a quick /health probe for running sandboxes. */
  inspect(sandboxId: string): Promise<RuntimeSandbox>;
  /** Idempotent: pausing a paused sandbox succeeds. */
  pause(sandboxId: string): Promise<RuntimeSandbox>;
  /**
   * Unfreezes a paused sandbox, or restarts an exited one (same id, key, data), and resolves once
   * it answers /health again; rejects with the reason when it does not. A no-op when running.
   */
  resume(sandboxId: string): Promise<RuntimeSandbox>;
  /**
   * Optional: replaces the egress policy of a running or paused sandbox; new connections follow
   * it at once. A runtime without it cannot change a policy after start.
   */
  setEgressPolicy?(sandboxId: string, policy: SandboxEgressPolicy): Promise<void>;
  /**
   * Optional: tells the control plane of connections its enforcer refused (rate-limited by the
   * runtime), for the `/metrics` counters and `sandbox.egress_denied` events.
   */
  onEgressDenied?(listener: (denial: EgressDenial) => void): void;
  /**
   * Optional: reports (through `onEgressDenied`) the connections to addresses the sandbox's
   * enforcer refused since the last read. Those are counted where they happen and read only when
   * asked (one read per call), so the control plane asks while a sandbox is active; refused names
   * are reported at once without it. Resolves also when the sandbox is gone.
   */
  reportEgressDenials?(sandboxId: string): Promise<void>;
  /**
   * Optional: the running sandbox's own address as the control plane's host reaches it (a
   * process sandbox's veth address, a local container's bridge address), where its apps listening
   * on all addresses answer; null when there is none or the sandbox is not running here.
   */
  addressOf?(sandboxId: string): Promise<string | null>;
  /** Stops and removes everything of the sandbox. Succeeds if it is already gone. */
  delete(sandboxId: string): Promise<void>;
  /** Every sandbox this runtime manages (by its labels), for reconciliation. */
  list(): Promise<RuntimeSandbox[]>;
  /** Releases handles (timers, sockets); sandboxes keep running. */
  close(): Promise<void>;
  /**
   * Optional: tells the control plane promptly when a sandbox ends without being asked to
   * (crash, OOM, killed from outside), instead of at its next inspect. Not called for delete().
   * A runtime over several Docker hosts also tells when sandboxes come back (`recovered`).
   */
  on?(event: SandboxRuntimeEvent, listener: SandboxExitListener): unknown;
  off?(event: SandboxRuntimeEvent, listener: SandboxExitListener): unknown;
}
