import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:net";
import type { UsableNetns } from "./detect-netns";
import type { LoopbackForward } from "./egress-ruleset";
import { PROXY_PORT, RESOLVER_PORT } from "./egress-ruleset";

/** The agent server's port inside its own namespace (the host reaches it through pasta). */
export const INSIDE_AGENT_PORT = 8000;

/** Where `ip netns` keeps named namespaces. */
const NETNS_DIR = "/run/netns";

/** Tried this many host ports before giving up (one may be taken between our probe and pasta's bind). */
const PASTA_ATTEMPTS = 4;

/**
 * The network namespace of the sandbox in `sandboxDir`, by name: unique per sandbox directory, so
 * two control planes on one machine never share one. `ip netns` names it, which keeps it (and its
 * ruleset) while nothing runs in it, across relaunches and control-plane restarts.
 */
export function netnsNameFor(sandboxDir: string): string {
  return `ssn-${createHash("sha256").update(sandboxDir).digest("hex").slice(0, 16)}`;
}

/** A named namespace's path; a path (`/proc/<pid>/ns/net`, a container's) is taken as it is. */
export function netnsPathOf(name: string): string {
  return name.startsWith("/") ? name : `${NETNS_DIR}/${name}`;
}

// One spawn: the namespace (unless it exists: a relaunch) and its loopback up, which the agent
// server binds at once.
const CREATE =
  '[ -e "/run/netns/$1" ] || "$IP" netns add "$1" || exit 1; exec "$IP" -n "$1" link set lo up';

/**
 * Makes the namespace `name` if it is not there yet (owned by the initial user namespace: a
 * sandbox's own user namespace holds no capability over it) and brings its loopback up. Nothing
 * can leave it yet: loopback is its only interface until pasta attaches.
 */
export async function createNetns(tools: UsableNetns, name: string): Promise<void> {
  await runWithInput("/bin/sh", ["-c", CREATE, "create-netns", name], "", tools);
}

/** Replaces the ruleset of an existing namespace, atomically (`nft -f` is one transaction). */
export async function applyRuleset(
  tools: UsableNetns,
  name: string,
  ruleset: string,
): Promise<void> {
  await runWithInput(
    tools.nsenter,
    [`--net=${netnsPathOf(name)}`, tools.nft, "-f", "-"],
    ruleset,
    tools,
  );
}

/** Adds elements to the namespace's sets (`add element ...` lines), one transaction. */
export function addSetElements(tools: UsableNetns, name: string, commands: string): Promise<void> {
  return applyRuleset(tools, name, commands);
}

/** Reads a set of the namespace's table as nft's JSON. */
export async function listSet(
  tools: UsableNetns,
  name: string,
  table: string,
  set: string,
): Promise<string> {
  return runWithInput(
    tools.nsenter,
    [`--net=${netnsPathOf(name)}`, tools.nft, "-j", "list", "set", "inet", table, set],
    "",
    tools,
  );
}

/** Every set of the namespace's `inet` tables with its elements, as `nft -j` prints them: one call. */
export async function listSets(tools: UsableNetns, name: string): Promise<string> {
  return runWithInput(
    tools.nsenter,
    [`--net=${netnsPathOf(name)}`, tools.nft, "-j", "list", "sets", "inet"],
    "",
    tools,
  );
}

/** Removes the namespace (its ruleset goes with it). Succeeds when it is already gone. */
export async function removeNetns(tools: UsableNetns, name: string): Promise<void> {
  await runWithInput(
    "/bin/sh",
    ["-c", '[ ! -e "/run/netns/$1" ] || exec "$IP" netns del "$1"', "remove-netns", name],
    "",
    tools,
  );
}

export interface PastaAttach {
  tools: UsableNetns;
  name: string;
  /** Applied (nft -f) in the namespace first, in the same spawn: one fork of the control plane. */
  ruleset: string;
  /** Environment of pasta (the sandbox marker: pasta is one of the sandbox's processes). */
  env: Record<string, string>;
  /** The control plane's resolver for this sandbox, a UDP port on the host's 127.0.0.1. */
  resolverPort: number | null;
  /** The control plane's egress proxy for this sandbox, a TCP port on the host's 127.0.0.1. */
  proxyPort?: number | null;
  forwards: LoopbackForward[];
}

/**
 * Attaches pasta to the namespace: a tap device with the host's addresses and routes for egress
 * (which pasta performs from the host's network as this user, so the ruleset decides what may go
 * out), `--no-map-gw` so the gateway address is not the host's loopback, and exactly these
 * forwards — the host's 127.0.0.1:<port> to the agent server inside (the only inbound one), the
 * namespace's 127.0.0.1:53 (UDP) to the sandbox's resolver, its 127.0.0.1:3128 (TCP) to the
 * sandbox's egress proxy, and each operator exception on the
 * host's loopback from the same address and port inside (TCP and UDP). Nothing else: every
 * forwarding option is given (pasta's own defaults forward automatically). pasta forks into the
 * background once set up; it runs until the sandbox's processes are stopped (it carries the
 * marker). The ruleset is applied just before, in the same spawn: until pasta's tap device the
 * namespace has no way out, so nothing leaves it before the ruleset is in place. Returns the host
 * port, retrying on a port taken meanwhile.
 */
// The ruleset from stdin, then pasta (exec: the marker's process is pasta's own). A retry applies
// the same ruleset again, which replaces it with itself.
const RULESET_THEN_PASTA =
  'netns="$1"; shift; "$NSENTER" --net="$netns" "$NFT" -f - || exit 1; exec "$PASTA" "$@"';

export async function attachPasta(attach: PastaAttach): Promise<number> {
  let lastError = "";
  for (let attempt = 0; attempt < PASTA_ATTEMPTS; attempt++) {
    const hostPort = await freeLoopbackPort();
    try {
      await runWithInput(
        "/bin/sh",
        [
          "-c",
          RULESET_THEN_PASTA,
          "attach-pasta",
          netnsPathOf(attach.name),
          ...pastaArgs(attach, hostPort),
        ],
        attach.ruleset,
        attach.tools,
        attach.env,
      );
      return hostPort;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
  }
  throw new Error(`pasta could not attach to the sandbox's network namespace: ${lastError}`);
}

export function pastaArgs(attach: PastaAttach, hostPort: number): string[] {
  // pasta (2023) takes no address for these: it listens on every address of the namespace, which
  // are all the sandbox's own (the ruleset treats the port alike on each).
  const tcpNs = [...new Set(attach.forwards.map((f) => String(f.port)))];
  const udpNs = [
    ...(attach.resolverPort === null ? [] : [`${RESOLVER_PORT}:${attach.resolverPort}`]),
    ...tcpNs,
  ];
  return [
    "--quiet",
    // As root pasta would switch to nobody, which cannot enter a namespace owned by root.
    "--runas",
    "0",
    "--netns",
    netnsPathOf(attach.name),
    "--config-net",
    "--no-map-gw",
    "-t",
    `127.0.0.1/${hostPort}:${INSIDE_AGENT_PORT}`,
    "-u",
    "none",
    ...forwardArgs("-T", [
      ...(attach.proxyPort == null ? [] : [`${PROXY_PORT}:${attach.proxyPort}`]),
      ...tcpNs,
    ]),
    ...forwardArgs("-U", udpNs),
  ];
}

function forwardArgs(option: string, specs: string[]): string[] {
  return specs.length === 0 ? [option, "none"] : specs.flatMap((spec) => [option, spec]);
}

/** A port free on the host's 127.0.0.1 right now (pasta binds it next; a clash is retried). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/** Runs a tool with `input` on stdin; its stdout, or an error with the first lines of stderr. */
export function runWithInput(
  command: string,
  args: string[],
  input: string,
  tools: UsableNetns,
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { IP: tools.ip, NFT: tools.nft, NSENTER: tools.nsenter, PASTA: tools.pasta, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `${args[0] === "-c" ? args[2] : command} failed (${code}): ${errors
              .split("\n")
              .filter((line) => line.trim() !== "" && !line.includes("syslog"))
              .slice(0, 3)
              .join("; ")}`,
          ),
        );
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
  });
}
