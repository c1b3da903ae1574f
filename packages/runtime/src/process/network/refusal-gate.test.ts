import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PROBE_SCRIPT } from "../test/probe";
import { detectNetns, type UsableNetns } from "./detect-netns";
import { compileEgressRuleset } from "./egress-ruleset";
import { RefusalGate, readRefusalMarks } from "./refusal-gate";
import { type RefusedDestination, readRefused } from "./refused-destinations";
import { applyRuleset, netnsPathOf } from "./sandbox-network";

/**
 * The gate against the kernel: a namespace with the sandbox ruleset and a peer namespace of the
 * test's own behind a veth pair (IPv4 and IPv6), where a server listens on an allowed and a
 * refused port. Needs root, nftables and nsenter: in CI (`CI=true`) these tests fail without
 * them; elsewhere they are skipped with a warning.
 */
const support = detectNetns();
const mustRun = support.usable || process.env.CI === "true";
if (!mustRun) console.warn(`[refusal gate tests] skipped: ${support.usable ? "" : support.reason}`);

const exec = promisify(execFile);
const tag = randomBytes(3).toString("hex");
const inside = `ssnt-gate-${tag}`;
const peer = `ssnt-peer-${tag}`;
const subnet = 1 + Math.floor(Math.random() * 250);
const PEERS = { 4: `198.18.${subnet}.2`, 6: `fd00:5e:${subnet.toString(16)}::2` } as const;
const ALLOWED = 80;
/** Refused ports, one per kind of test (the refused sets key on address and port). */
const REFUSED_PORTS = { tcp: 81, udp: 82, limited: 83 } as const;
/** A refusal: an error code at once, not silence. */
const REFUSED = /^E[A-Z_]+$/;

const PEER_SERVER = `
const net = require("net"), dgram = require("dgram");
for (const port of [${ALLOWED}, ${Object.values(REFUSED_PORTS).join(", ")}]) {
  net.createServer((s) => s.end()).listen(port, "::");
  const u = dgram.createSocket("udp6");
  u.on("message", (m, p) => u.send(m, p.port, p.address));
  u.bind(port, "::");
}
setTimeout(() => console.log("ready"), 100);`;

describe.runIf(mustRun)("RefusalGate, with the kernel's counters", { timeout: 60_000 }, () => {
  let tools: UsableNetns;
  let server: ChildProcess;
  /** A process in the namespace, as a sandbox's launched one. */
  let member: ChildProcess;
  const gate = new RefusalGate();
  let reads = 0;
  let lastRead: RefusedDestination[] = [];

  const probe = async (...args: string[]) => {
    const { stdout } = await exec(tools.nsenter, [
      `--net=${netnsPathOf(inside)}`,
      process.execPath,
      "-e",
      PROBE_SCRIPT,
      "probe",
      ...args,
    ]);
    return stdout.trim();
  };
  /**
   * Until a pull skips: the kernel's own traffic after the link comes up (IPv6 multicast reports
   * the ruleset refuses) moves the counters too, which costs reads but must not fail a test.
   */
  const settle = () =>
    vi.waitFor(
      async () => {
        const before = reads;
        await pull();
        expect(reads).toBe(before);
      },
      { timeout: 20_000, interval: 200 },
    );
  const marks = () => readRefusalMarks(netnsPathOf(inside), member.pid ?? 0);
  const pull = () =>
    gate.pass("sb_gate", netnsPathOf(inside), member.pid ?? null, async () => {
      reads++;
      lastRead = await readRefused(tools, inside);
      return true;
    });

  beforeAll(async () => {
    if (!support.usable) throw new Error(support.reason);
    tools = support;
    const ip = (...args: string[]) => exec("ip", args);
    await ip("netns", "add", inside);
    await ip("netns", "add", peer);
    const [a, b] = [`ssntg${tag}`, `ssntp${tag}`];
    await ip("link", "add", a, "netns", inside, "type", "veth", "peer", "name", b, "netns", peer);
    for (const [ns, dev, host] of [
      [inside, a, 1],
      [peer, b, 2],
    ] as const) {
      await ip("-n", ns, "addr", "add", `198.18.${subnet}.${host}/30`, "dev", dev);
      await ip("-n", ns, "addr", "add", `${PEERS[6].slice(0, -1)}${host}/64`, "dev", dev, "nodad");
      await ip("-n", ns, "link", "set", dev, "up");
      await ip("-n", ns, "link", "set", "lo", "up");
    }
    const target = (address: string) => ({ kind: "cidr" as const, cidr: address, port: ALLOWED });
    const ruleset = compileEgressRuleset({
      policy: {
        allowInternet: true,
        allowOut: [target(`${PEERS[4]}/32`), target(`${PEERS[6]}/128`)],
        denyOut: [],
      },
      operator: { allow: [] },
    });
    await applyRuleset(tools, inside, ruleset);
    member = spawn(tools.nsenter, [`--net=${netnsPathOf(inside)}`, "sleep", "600"], {
      stdio: "ignore",
    });
    server = spawn(
      tools.nsenter,
      [`--net=${netnsPathOf(peer)}`, process.execPath, "-e", PEER_SERVER],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise((resolve) => server.stdout?.once("data", resolve));
  });

  afterAll(async () => {
    server?.kill("SIGKILL");
    member?.kill("SIGKILL");
    for (const ns of [inside, peer]) await exec("ip", ["netns", "del", ns]).catch(() => undefined);
  });

  it("reads the counters through a process in the namespace, not through one elsewhere", async () => {
    expect(marks()).toMatch(/^\d+( \d+){5}$/);
    expect(readRefusalMarks(netnsPathOf(inside), process.pid)).toBeNull();
    expect(readRefusalMarks(netnsPathOf(peer), member.pid ?? 0)).toBeNull();
  });

  it("reads at the first pull, then not while nothing is refused", async () => {
    for (const family of [4, 6] as const) {
      expect(await probe("tcp", PEERS[family], String(ALLOWED))).toBe("open");
      expect(await probe("udp", PEERS[family], String(ALLOWED))).toBe("reply ping");
    }
    const before = reads;
    await pull();
    expect(reads).toBe(before + 1);
    await settle();
  });

  // Before any ICMP error left the namespace: its rate limit starts with no credit.
  it("reads after a refused UDP send whose ICMP error the kernel's rate limit held back", async () => {
    const sysctl = (...settings: string[]) =>
      exec("ip", ["netns", "exec", inside, "sysctl", "-q", "-w", ...settings]);
    const icmpSent = () => marks()?.split(" ")[3];
    await sysctl("net.ipv4.icmp_msgs_per_sec=0", "net.ipv4.icmp_msgs_burst=0");
    try {
      await settle();
      const [before, sent] = [reads, icmpSent()];
      // No error reaches the probe: the send's EPERM is not passed on, and no ICMP comes.
      expect(await probe("udp", PEERS[4], String(REFUSED_PORTS.limited))).toBe("timeout");
      expect(icmpSent()).toBe(sent);
      await pull();
      expect(reads).toBe(before + 1);
      expect(lastRead).toContainEqual(expect.objectContaining({ port: REFUSED_PORTS.limited }));
    } finally {
      await sysctl("net.ipv4.icmp_msgs_per_sec=1000", "net.ipv4.icmp_msgs_burst=50");
    }
  });

  for (const kind of ["tcp", "udp"] as const) {
    for (const family of [4, 6] as const) {
      it(`reads again after a refused ${kind} IPv${family} connection, which it reports`, async () => {
        await settle();
        const before = reads;
        expect(await probe(kind, PEERS[family], String(REFUSED_PORTS[kind]))).toMatch(REFUSED);
        await pull();
        expect(reads).toBe(before + 1);
        expect(lastRead).toContainEqual(
          expect.objectContaining({ address: PEERS[family], port: REFUSED_PORTS[kind] }),
        );
      });
    }
  }

  it("counts each refused TCP connect and UDP send in the destination's element", async () => {
    const packets = (kind: keyof typeof REFUSED_PORTS) =>
      lastRead.find((d) => d.address === PEERS[4] && d.port === REFUSED_PORTS[kind])?.packets;
    await pull();
    const before = { tcp: packets("tcp") ?? 0, udp: packets("udp") ?? 0 };
    for (const kind of ["tcp", "tcp", "udp"] as const) {
      expect(await probe(kind, PEERS[4], String(REFUSED_PORTS[kind]))).toMatch(REFUSED);
    }
    await pull();
    expect(packets("tcp")).toBe(before.tcp + 2);
    expect(packets("udp")).toBe(before.udp + 1);
  });

  it("reads at every pull where the pid is not in the namespace", async () => {
    const before = reads;
    const elsewhere = () =>
      gate.pass("sb_elsewhere", netnsPathOf(inside), process.pid, async () => {
        reads++;
        return true;
      });
    await elsewhere();
    await elsewhere();
    expect(reads).toBe(before + 2);
  });
});
