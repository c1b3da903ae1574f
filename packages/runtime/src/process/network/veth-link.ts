import { randomInt } from "node:crypto";
import type { UsableNetns } from "./detect-netns";
import { VETH_PREFIX } from "./detect-veth";
import { EGRESS_TABLE, type LoopbackForward, PROXY_PORT, RESOLVER_PORT } from "./egress-ruleset";
import { runWithInput } from "./sandbox-network";

export { VETH_PREFIX };

/**
 * A sandbox namespace's way out through the kernel: a veth pair, the host's end `ssnv<i>` with
 * 198.19.<4i+1>/30 and the namespace's `eth0` with <4i+2>/30, routed and masqueraded by the host.
 * 198.19.0.0/16 is benchmarking space (RFC 2544; the tests' LAN hosts use 198.18.x): refused to
 * sandboxes by their ruleset, used by nothing else here. Index i is claimed by creating the
 * host's end (the kernel refuses a name that exists), so control planes sharing the machine never
 * hand out one address twice; the pair goes with the namespace. The range as a prefix of the
 * pairs' dotted addresses:
 */
export const VETH_RANGE_PREFIX = "198.19.";
const SLOTS = 16_384;
const CLAIM_ATTEMPTS = 8;

/** The host's table: what sandboxes may do to the host and each other, and their NAT. */
export const HOST_TABLE = "sandbox_veth";
/** The namespace's table that carries its loopback's DNS and operator ports to the host. */
export const LINK_TABLE = "sandbox_link";

export interface VethSlot {
  index: number;
  /** The host's end: where the resolver listens, and the namespace's gateway. */
  hostAddress: string;
  /** The namespace's end: where the agent server listens. */
  address: string;
}

export function vethSlot(index: number): VethSlot {
  const base = (198 << 24) + (19 << 16) + index * 4;
  return { index, hostAddress: dotted(base + 1), address: dotted(base + 2) };
}

/** The host's end of the pair whose namespace end is `address`. */
export function hostAddressOf(address: string): string {
  const parts = address.split(".").map(Number);
  return dotted(
    ((parts[0] ?? 0) << 24) +
      ((parts[1] ?? 0) << 16) +
      ((parts[2] ?? 0) << 8) +
      (parts[3] ?? 0) -
      1,
  );
}

function dotted(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join(".");
}

/**
 * Until the launch applies the sandbox's ruleset, its namespace lets out nothing but replies:
 * the same table name, so the ruleset replaces it in one transaction.
 */
const CLOSED_TABLE = `table inet ${EGRESS_TABLE} {
  chain output {
    type filter hook output priority filter; policy drop;
    oif "lo" accept
    ct state established,related accept
  }
}
`;

/**
 * The namespace's loopback DNS, egress proxy (TCP PROXY_PORT) and operator ports, carried to
 * the host's end (after the egress table has judged them on the loopback: priority after
 * filter). Their source is 127.0.0.1, which leaves the namespace only with `route_localnet` on
 * eth0 and is masqueraded to eth0's. An operator exception on PROXY_PORT is carried like the
 * others (the host sends it on to its loopback; the sandbox then has no proxy).
 */
export function linkTable(hostAddress: string, forwards: LoopbackForward[]): string {
  const ports = [...new Set(forwards.filter((f) => f.address === "127.0.0.1").map((f) => f.port))];
  return [
    `table ip ${LINK_TABLE} {}`,
    `delete table ip ${LINK_TABLE}`,
    `table ip ${LINK_TABLE} {`,
    "  chain output {",
    "    type nat hook output priority filter + 10; policy accept;",
    `    ip daddr 127.0.0.1 udp dport ${RESOLVER_PORT} dnat to ${hostAddress}`,
    ...(ports.includes(PROXY_PORT)
      ? []
      : [`    ip daddr 127.0.0.1 tcp dport ${PROXY_PORT} dnat to ${hostAddress}`]),
    ...(ports.length
      ? [
          `    ip daddr 127.0.0.1 meta l4proto { tcp, udp } th dport { ${ports.join(", ")} } dnat to ${hostAddress}`,
        ]
      : []),
    "  }",
    "  chain postrouting {",
    "    type nat hook postrouting priority srcnat; policy accept;",
    '    oifname "eth0" ip saddr 127.0.0.0/8 masquerade',
    "  }",
    "}",
    "",
  ].join("\n");
}

/**
 * The host's table (shared by every control plane on the machine; its rules are the same for
 * all, so any of them may write it again): nothing from a sandbox reaches the host — its
 * services on 0.0.0.0, its other addresses — but replies, DNS (UDP 53, the resolver) and TCP
 * PROXY_PORT (the egress proxy) to the host's end of its own pair, and the operator's loopback
 * ports (DNAT to 127.0.0.1, which the interface's
 * `route_localnet` lets in); nothing reaches a sandbox but the host and replies; no sandbox
 * reaches another, nor a port another program published by DNAT. Egress is masqueraded.
 */
export function hostTable(forwards: LoopbackForward[]): string {
  const ports = [...new Set(forwards.filter((f) => f.address === "127.0.0.1").map((f) => f.port))];
  const iif = `iifname "${VETH_PREFIX}*"`;
  const oif = `oifname "${VETH_PREFIX}*"`;
  const chain = (name: string, spec: string, rules: string[]) => [
    `add chain inet ${HOST_TABLE} ${name} { ${spec} }`,
    `flush chain inet ${HOST_TABLE} ${name}`,
    ...rules.map((rule) => `add rule inet ${HOST_TABLE} ${name} ${rule}`),
  ];
  return [
    `add table inet ${HOST_TABLE}`,
    `add set inet ${HOST_TABLE} loopback_ports { type inet_proto . inet_service; }`,
    ...chain("prerouting", "type nat hook prerouting priority dstnat; policy accept;", [
      `${iif} fib daddr . iif type local meta l4proto . th dport @loopback_ports dnat ip to 127.0.0.1`,
    ]),
    ...chain("input", "type filter hook input priority filter - 10; policy accept;", [
      `${iif} ct state established,related accept`,
      `${iif} udp dport ${RESOLVER_PORT} fib daddr . iif type local accept`,
      `${iif} tcp dport ${PROXY_PORT} fib daddr . iif type local accept`,
      `${iif} ct status dnat ip daddr 127.0.0.1 meta l4proto . th dport @loopback_ports accept`,
      `${iif} reject with icmpx type admin-prohibited`,
    ]),
    ...chain("forward", "type filter hook forward priority filter - 10; policy accept;", [
      `${iif} ${oif} reject with icmpx type admin-prohibited`,
      `${iif} ct status dnat reject with icmpx type admin-prohibited`,
      `${oif} ct state established,related accept`,
      `${oif} drop`,
    ]),
    ...chain("postrouting", "type nat hook postrouting priority srcnat; policy accept;", [
      `${iif} oifname != "${VETH_PREFIX}*" masquerade`,
    ]),
    ...(ports.length
      ? [
          `add element inet ${HOST_TABLE} loopback_ports { ${ports.flatMap((p) => [`tcp . ${p}`, `udp . ${p}`]).join(", ")} }`,
        ]
      : []),
    "",
  ].join("\n");
}

// Docker's FORWARD policy is DROP, and a drop in its chain stands whatever ours accepted:
// DOCKER-USER (which Docker keeps, and jumps to first) lets the sandboxes' traffic through, after
// our forward chain has dropped what must not pass.
// Checked and inserted under a lock: control planes (and their pools) run this concurrently.
const DOCKER_USER =
  '[ -n "$IPTABLES" ] || exit 0; "$IPTABLES" -n -L DOCKER-USER >/dev/null 2>&1 || exit 0; ' +
  "exec 9>/run/sandbox-veth.lock; ! command -v flock >/dev/null || flock 9; " +
  'for rule in "-i $1+ -j ACCEPT" "-o $1+ -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT"; do ' +
  '"$IPTABLES" -C DOCKER-USER $rule 2>/dev/null || "$IPTABLES" -I DOCKER-USER $rule || exit 1; done';

/**
 * Writes the host's table and lets sandbox traffic through Docker's FORWARD chain where there
 * is one. Run at start and again now and then before namespaces are made ahead (a firewall
 * reloaded since then is mended there).
 */
export async function ensureHostRules(
  tools: UsableNetns,
  forwards: LoopbackForward[],
): Promise<void> {
  await runScript(
    `"$NFT" -f - || exit 1; ${DOCKER_USER}`,
    [VETH_PREFIX],
    hostTable(forwards),
    tools,
  );
}

// The link table's DNAT target: an nft variable, defined (`nft -D`) once a slot is claimed.
const HOST_VARIABLE = "$host";

// $1 namespace, $2 "1" to give the host's end route_localnet, then slots "i host ns".
// An existing namespace with its eth0 addressed is kept (a relaunch): its address is printed.
// Few processes (each one a fork of the control plane, on what may be a busy machine): the
// namespace's tables from stdin straight into nft, each side's links and addresses in one
// `ip -batch` (the namespace's in the same nsenter).
const CREATE_WITH_VETH = `
ns="$1"; localnet="$2"; shift 2
if [ -e "/run/netns/$ns" ]; then
  have=$("$IP" -n "$ns" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}')
  if [ -n "$have" ]; then echo "\${have%/*}"; exit 0; fi
else
  "$IP" netns add "$ns" || exit 1
fi
for slot in "$@"; do
  set -- $slot
  dev="${VETH_PREFIX}$1"
  "$IP" link add "$dev" type veth peer name eth0 netns "$ns" 2>/dev/null || continue
  if "$NSENTER" --net="/run/netns/$ns" /bin/sh -c '
      echo 1 > /proc/sys/net/ipv4/conf/eth0/route_localnet &&
      "$NFT" -D host="$1" -f - && exec "$IP" -batch /dev/fd/3' ns "$2" 3<<BATCH &&
link set lo up
link set eth0 addrgenmode none
addr add $3/30 dev eth0
link set eth0 up
route add default via $2
BATCH
    { [ "$localnet" != 1 ] || echo 1 > "/proc/sys/net/ipv4/conf/$dev/route_localnet"; } &&
    "$IP" -batch - <<BATCH
link set $dev addrgenmode none
addr add $2/30 dev $dev
link set $dev up
BATCH
  then echo "$3"; exit 0; fi
  "$IP" link del "$dev" 2>/dev/null
  echo "the veth pair could not be set up" >&2; exit 1
done
echo "no free veth slot" >&2; exit 1
`;

/**
 * Makes the namespace `name` with its veth pair (or keeps both, when the namespace has them: a
 * relaunch) and returns the namespace's address. The namespace's egress table is closed until
 * the launch applies the sandbox's ruleset: it can reach nothing before that.
 */
export async function createNetnsWithVeth(
  tools: UsableNetns,
  name: string,
  forwards: LoopbackForward[],
): Promise<string> {
  const slots = Array.from({ length: CLAIM_ATTEMPTS }, () => vethSlot(randomInt(SLOTS)));
  const loopbackForwarded = forwards.some((f) => f.address === "127.0.0.1");
  const output = await runScript(
    CREATE_WITH_VETH,
    [
      name,
      loopbackForwarded ? "1" : "0",
      ...slots.map((slot) => `${slot.index} ${slot.hostAddress} ${slot.address}`),
    ],
    `${CLOSED_TABLE}${linkTable(HOST_VARIABLE, forwards)}`,
    tools,
  );
  const address = output.trim();
  if (!/^198\.19\.\d+\.\d+$/.test(address)) throw new Error(`unexpected veth address: ${address}`);
  return address;
}

function runScript(
  script: string,
  args: string[],
  input: string,
  tools: UsableNetns,
): Promise<string> {
  return runWithInput("/bin/sh", ["-c", script, "veth setup", ...args], input, tools, {
    PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
    IPTABLES: tools.iptables ?? "",
  });
}
