import path from "node:path";
import type { OperatorEgressPolicy } from "@sandbox-server/egress";
import type { RuntimeLogger } from "../types";
import { detectBwrap, type UsableBwrap } from "./isolation/detect-bwrap";
import { prepareSeccomp, type SeccompSupport } from "./isolation/prepare-seccomp";
import { sandboxUidFor } from "./isolation/sandbox-layout";
import {
  chooseLink,
  detectNetns,
  type NetnsLink,
  type NetnsLinkChoice,
  type UsableNetns,
} from "./network/detect-netns";

/**
 * - `auto`: under bubblewrap when it is installed and works here, else plain processes
 * - `bwrap`: under bubblewrap, or the runtime refuses to start
 * - `none`: plain processes (isolation `none`)
 */
export type ProcessSandboxing = "auto" | "bwrap" | "none";

/**
 * - `auto`: a network namespace of its own for each bubblewrapped sandbox when one can be made
 *   here (root, pasta, nftables), else the host's network
 * - `own`: a namespace of its own, or the runtime refuses to start
 * - `shared`: the host's network (as unsandboxed processes always have)
 */
export type ProcessNetworking = "auto" | "own" | "shared";

export interface ProcessRuntimeOptions {
  /** Parent of every sandbox directory (`rootDir/<sandboxId>/`). */
  rootDir: string;
  /** The bundled agent server (`apps/agent-server/dist/agent-server.js`). */
  agentServerEntry: string;
  /** Node binary that runs the bundle (default: the one running this code). */
  nodePath?: string;
  /** Default `auto`. */
  sandboxing?: ProcessSandboxing;
  /** The bubblewrap binary (default: `bwrap` on the PATH). */
  bwrapPath?: string;
  /** A Python 3 with python3-seccomp, which compiles the sandboxes' seccomp filter (default /usr/bin/python3). */
  seccompPython?: string;
  /** Default `auto`; only bubblewrapped sandboxes can have a network of their own. */
  networking?: ProcessNetworking;
  /**
   * How a sandbox's namespace reaches out (default `auto`: a veth pair where one works here, else
   * pasta). `veth` or `pasta` alone: that one, or no network of its own.
   */
  networkLink?: NetnsLinkChoice;
  /** The operator's exceptions to the refused address ranges (default: none). */
  egress?: { operator: OperatorEgressPolicy };
  /**
   * How a sandbox's resolver resolves a name (default: as the host does, getaddrinfo:
   * /etc/hosts, then DNS); null for a name that does not exist.
   */
  resolveName?: (name: string) => Promise<string[] | null>;
  /** Size of a bubblewrapped sandbox's private /tmp, a tmpfs (default 1024 MB). */
  tmpSizeMb?: number;
  /**
   * The CPU weight of all sandboxes together against the control plane's 100, as a cgroup v2
   * `cpu.weight` (1–10000; v1 `cpu.shares` get the same ratio to 1024). Default 25: under load
   * the control plane gets four fifths of the CPU, the sandboxes share the rest fairly; idle
   * CPU goes to whoever wants it. Applied where cgroups with the cpu controller are writable.
   */
  sandboxCpuWeight?: number;
  /** Loopback address agent servers listen on (default 127.0.0.1). */
  host?: string;
  logger?: RuntimeLogger;
  /** PATH inside sandboxes (default: the node binary's directory and the system directories). */
  sandboxPath?: string;
  /** LANG inside sandboxes (default C.UTF-8). */
  lang?: string;
  /** How long a new agent server may take to print its listening line (default 15 s). */
  listenTimeoutMs?: number;
  /** How long resume waits for /health before it rejects (default 30 s). */
  resumeTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL on delete (default 3 s). */
  stopGraceMs?: number;
  /** Budget of one /health probe in inspect (default 1 s). */
  probeTimeoutMs?: number;
  /** How often adopted processes are checked for exits (default 1 s). */
  watchIntervalMs?: number;
}

/** The options with their defaults filled in. */
export interface ProcessRuntimeSettings {
  rootDir: string;
  nodePath: string;
  agentServerEntry: string;
  /** bubblewrap when sandboxes run under it, null for plain processes. */
  bwrap: UsableBwrap | null;
  /** The seccomp filter of bubblewrapped sandboxes, or why they run without; null without bwrap. */
  seccomp: SeccompSupport | null;
  /** The tools for a network namespace per sandbox, null when sandboxes share the host's network. */
  netns: UsableNetns | null;
  /** The namespaces' data path, null with the host's network. */
  netnsLink: NetnsLink | null;
  operatorEgress: OperatorEgressPolicy;
  resolveName: ((name: string) => Promise<string[] | null>) | null;
  /** The sandbox user's uid (and gid) inside its user namespace. */
  sandboxUid: number;
  tmpSizeMb: number;
  sandboxCpuWeight: number;
  host: string;
  sandboxPath: string;
  lang: string;
  listenTimeoutMs: number;
  resumeTimeoutMs: number;
  stopGraceMs: number;
  probeTimeoutMs: number;
  watchIntervalMs: number;
}

const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function resolveSettings(options: ProcessRuntimeOptions): ProcessRuntimeSettings {
  const nodePath = options.nodePath ?? process.execPath;
  const bwrap = resolveBwrap(options, nodePath);
  const pythonPath = options.seccompPython ?? "/usr/bin/python3";
  return {
    rootDir: path.resolve(options.rootDir),
    nodePath,
    agentServerEntry: path.resolve(options.agentServerEntry),
    bwrap,
    seccomp: bwrap ? prepareSeccomp({ bwrap, nodePath, pythonPath }) : null,
    ...resolveNetns(options, bwrap),
    operatorEgress: options.egress?.operator ?? { allow: [] },
    resolveName: options.resolveName ?? null,
    sandboxUid: sandboxUidFor(process.getuid?.() ?? 0),
    tmpSizeMb: options.tmpSizeMb ?? 1024,
    sandboxCpuWeight: resolveCpuWeight(options.sandboxCpuWeight),
    host: options.host ?? "127.0.0.1",
    // The node binary's directory first, so the agent's own commands find `node` too.
    sandboxPath: options.sandboxPath ?? `${path.dirname(nodePath)}:${SYSTEM_PATH}`,
    lang: options.lang ?? "C.UTF-8",
    listenTimeoutMs: options.listenTimeoutMs ?? 15_000,
    resumeTimeoutMs: options.resumeTimeoutMs ?? 30_000,
    stopGraceMs: options.stopGraceMs ?? 3000,
    probeTimeoutMs: options.probeTimeoutMs ?? 1000,
    watchIntervalMs: options.watchIntervalMs ?? 1000,
  };
}

/** The v2 `cpu.weight` range. */
export const CPU_WEIGHT_RANGE = { min: 1, max: 10_000 } as const;

function resolveCpuWeight(weight: number | undefined): number {
  if (weight === undefined) return 25;
  if (!Number.isInteger(weight) || weight < CPU_WEIGHT_RANGE.min || weight > CPU_WEIGHT_RANGE.max) {
    throw new Error(
      `sandboxCpuWeight must be an integer from ${CPU_WEIGHT_RANGE.min} to ${CPU_WEIGHT_RANGE.max}, got ${weight}`,
    );
  }
  return weight;
}

function resolveBwrap(options: ProcessRuntimeOptions, nodePath: string): UsableBwrap | null {
  const sandboxing = options.sandboxing ?? "auto";
  if (sandboxing === "none") return null;
  const support = detectBwrap({ bwrapPath: options.bwrapPath, nodePath });
  if (support.usable) return support;
  if (sandboxing === "bwrap") {
    throw new Error(
      `process sandboxes were asked to run under bubblewrap (sandboxing "bwrap"), but it cannot be used: ${support.reason}`,
    );
  }
  return null;
}

function resolveNetns(
  options: ProcessRuntimeOptions,
  bwrap: UsableBwrap | null,
): { netns: UsableNetns | null; netnsLink: NetnsLink | null } {
  const networking = options.networking ?? "auto";
  if (networking === "shared") return { netns: null, netnsLink: null };
  const tools = bwrap
    ? detectNetns()
    : { usable: false as const, reason: "sandboxes do not run under bubblewrap" };
  const link = tools.usable ? chooseLink(tools, options.networkLink ?? "auto") : tools;
  if (tools.usable && link.usable && "link" in link) return { netns: tools, netnsLink: link.link };
  if (networking === "own") {
    throw new Error(
      `process sandboxes were asked for a network of their own (networking "own"), but it cannot be made: ${link.usable ? "" : link.reason}`,
    );
  }
  return { netns: null, netnsLink: null };
}
