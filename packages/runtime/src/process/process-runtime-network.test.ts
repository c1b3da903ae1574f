import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer, type Server as NetServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import type {
  EgressDenial,
  OperatorEgressPolicy,
  SandboxEgressPolicy,
} from "@sandbox-server/egress";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { StartSandboxOptions } from "../types";
import { detectBwrap } from "./isolation/detect-bwrap";
import { chooseLink, detectNetns, type NetnsLink } from "./network/detect-netns";
import { POOL_SIZE } from "./network/netns-pool";
import { readRefusalMarks } from "./network/refusal-gate";
import { INSIDE_AGENT_PORT, netnsPathOf } from "./network/sandbox-network";
import { hostAddressOf } from "./network/veth-link";
import type { ProcessRuntime } from "./process-runtime";
import { readCmdline, readProcState } from "./read-proc";
import { readSandboxState, resolveSandboxPaths } from "./sandbox-files";
import { findSandboxProcesses, killSandboxProcesses } from "./sandbox-processes";
import { LanHost } from "./test/lan-host";
import { expectRefusalsPulled, installProbe, probeFromHost } from "./test/probe";
import { agentServerHostPid, RuntimeFixture, runBash } from "./test/support";

/**
 * A process sandbox's network is its own: each probe first succeeds where it must (on the host,
 * or in the sandbox's own namespace), then is refused from inside a sandbox — fast (a reset or an
 * ICMP error, never a timeout). Needs root, bubblewrap, pasta and nftables: in CI (`CI=true`)
 * these tests fail without them; elsewhere they are skipped with a warning.
 */
const bwrap = detectBwrap();
const netns = detectNetns();
const mustRun = (bwrap.usable && netns.usable) || process.env.CI === "true";
if (!mustRun) {
  console.warn(
    `[network tests] skipped: ${bwrap.usable ? "" : bwrap.reason} ${netns.usable ? "" : netns.reason}`,
  );
}

const exec = promisify(execFile);
const READY_TIMEOUT_MS = 30_000;
const LAN_NAME = "lan.sandbox-test.internal";

interface Sandbox {
  id: string;
  key: string;
  url: string;
  dir: string;
}

async function listen(server: Server | NetServer, ...args: unknown[]): Promise<number> {
  await new Promise<void>((resolve) =>
    (server.listen as (...a: unknown[]) => void)(...args, resolve),
  );
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

function portOf(server: Server): number {
  const address = server.address();
  return typeof address === "object" && address ? address.port : 0;
}

async function startSandbox(
  runtime: ProcessRuntime,
  rootDir: string,
  egress?: SandboxEgressPolicy,
): Promise<Sandbox> {
  const options: StartSandboxOptions = {
    sandboxId: `sb_${randomUUID().slice(0, 8)}`,
    ownerId: "user_1",
    specId: "default",
    sessionApiKey: `key-${randomUUID()}`,
    env: {},
    ...(egress ? { egress } : {}),
  };
  const started = await runtime.start(options);
  await runtime.waitUntilReady(options.sandboxId, READY_TIMEOUT_MS);
  const dir = resolveSandboxPaths(rootDir, options.sandboxId).dir;
  await installProbe(resolveSandboxPaths(rootDir, options.sandboxId).workspaceDir);
  return {
    id: options.sandboxId,
    key: options.sessionApiKey,
    url: started.agentServerUrl as string,
    dir,
  };
}

/** The probe inside the sandbox. */
async function probe(sandbox: Sandbox, ...args: string[]): Promise<string> {
  const result = await runBash(
    sandbox.url,
    sandbox.key,
    `node /workspace/probe.cjs ${args.join(" ")}`,
  );
  return result.stdout.trim();
}

/** The namespace `sandbox.json` names. */
async function namespaceOf(dir: string): Promise<string> {
  const state = JSON.parse(await readFile(path.join(dir, "sandbox.json"), "utf8"));
  return state.network.namespace as string;
}

/** The namespace's address on its veth pair, as `sandbox.json` records it. */
async function addressOf(dir: string): Promise<string> {
  const state = JSON.parse(await readFile(path.join(dir, "sandbox.json"), "utf8"));
  return state.network.address as string;
}

/** A refusal: an error code at once, not silence. */
const REFUSED = /^E[A-Z_]+$/;

function lanPolicy(overrides: Partial<SandboxEgressPolicy>): SandboxEgressPolicy {
  return { allowInternet: true, allowOut: [], denyOut: [], ...overrides };
}

/** Both data paths where they work here: the suite is the same, the few differences marked. */
const LINKS: NetnsLink[] = ["veth", "pasta"].filter((link) =>
  netns.usable ? chooseLink(netns, link as NetnsLink).usable : mustRun,
) as NetnsLink[];

for (const link of LINKS) networkSuite(link);

function networkSuite(link: NetnsLink): void {
  const fixture = new RuntimeFixture();
  const lan = new LanHost();
  const denials: EgressDenial[] = [];
  let isolated: ProcessRuntime;
  /** The same, with the operator's exception for the LAN host's web server and resolver. */
  let operatorAllowed: ProcessRuntime;
  let operatorRoot: string;
  let isolatedRoot: string;
  let operatorPolicy: OperatorEgressPolicy;
  let a: Sandbox;
  let b: Sandbox;
  let hostV4: Server;
  let hostV6: Server;
  let abstract: NetServer;
  /** A local LLM on the host's loopback, which the operator lets sandboxes reach. */
  let llm: Server;
  const abstractName = `sandbox-test-${randomUUID()}`;

  describe.runIf(mustRun)(
    `ProcessRuntime: a network of its own (${link})`,
    { timeout: 90_000 },
    () => {
      beforeAll(async () => {
        await lan.start();
        hostV4 = createHttpServer((_q, r) => r.end("control-plane"));
        hostV6 = createHttpServer((_q, r) => r.end("host-v6"));
        abstract = createServer((socket) => socket.end());
        await listen(hostV4, 0, "127.0.0.1");
        await listen(hostV6, 0, "::1");
        await listen(abstract, `\0${abstractName}`);
        llm = createHttpServer((_q, r) => r.end("local-llm"));
        await listen(llm, 0, "127.0.0.1");
        const resolveName = async (name: string) => (name === LAN_NAME ? [lan.address] : null);
        const rootDir = await fixture.createRootDir();
        isolatedRoot = rootDir;
        isolated = fixture.createRuntime(rootDir, {
          sandboxing: "bwrap",
          networking: "own",
          networkLink: link,
          resolveName,
        });
        isolated.onEgressDenied((denial) => denials.push(denial));
        operatorRoot = await fixture.createRootDir();
        const operator: OperatorEgressPolicy = {
          allow: [
            { kind: "cidr", cidr: `${lan.address}/32`, port: null },
            { kind: "cidr", cidr: "127.0.0.1/32", port: portOf(llm) },
          ],
        };
        operatorPolicy = operator;
        operatorAllowed = fixture.createRuntime(operatorRoot, {
          sandboxing: "bwrap",
          networking: "own",
          networkLink: link,
          egress: { operator },
          resolveName,
        });
        operatorAllowed.onEgressDenied((denial) => denials.push(denial));
        [a, b] = await Promise.all([
          startSandbox(isolated, rootDir),
          startSandbox(operatorAllowed, operatorRoot),
        ]);
      }, 120_000);

      afterAll(async () => {
        await fixture.cleanUp();
        await lan.stop();
        hostV4?.close();
        hostV6?.close();
        abstract?.close();
        llm?.close();
      });

      it("says so: isolation namespaces, network own", () => {
        expect(isolated.isolation).toBe("namespaces");
        expect(isolated.network).toBe("own");
      });

      it("has a loopback of its own", async () => {
        const own = await runBash(
          a.url,
          a.key,
          `node -e 'require("http").createServer((q, r) => r.end("own")).listen(9000, "127.0.0.1")' & sleep 0.5; node /workspace/probe.cjs http 127.0.0.1 9000; kill %1`,
        );
        expect(own.stdout.trim()).toBe("reply own");
        // Not the host's: nothing listens on 9000 there.
        expect(await probeFromHost("tcp", "127.0.0.1", "9000")).toMatch(REFUSED);
      });

      it("cannot reach the host's loopback, v4 or v6, nor the control plane's port", async () => {
        expect(await probeFromHost("http", "127.0.0.1", String(portOf(hostV4)))).toBe(
          "reply control-plane",
        );
        expect(await probeFromHost("http", "::1", String(portOf(hostV6)))).toBe("reply host-v6");
        expect(await probe(a, "tcp", "127.0.0.1", String(portOf(hostV4)))).toMatch(REFUSED);
        expect(await probe(a, "tcp", "::1", String(portOf(hostV6)))).toMatch(REFUSED);
      });

      it("cannot reach the host's abstract Unix sockets", async () => {
        expect(await probeFromHost("unix", abstractName)).toBe("open");
        expect(await probe(a, "unix", abstractName)).toMatch(REFUSED);
      });

      it("cannot reach another sandbox's agent server; the host can, where its URL says", async () => {
        const { hostname, port } = new URL(b.url);
        expect(hostname).toBe(link === "veth" ? await addressOf(b.dir) : "127.0.0.1");
        expect(await probeFromHost("tcp", hostname, port)).toBe("open");
        expect(await probe(a, "tcp", hostname, port)).toMatch(REFUSED);
      });

      it.runIf(link === "veth")(
        "reaches neither the host's services nor other sandboxes where its own ruleset lets it",
        async () => {
          // A runtime whose operator opens the sandboxes' own range: only the host's rules stand
          // between its sandbox and the host's end of its pair, or another sandbox's address.
          const root = await fixture.createRootDir();
          const open = fixture.createRuntime(root, {
            sandboxing: "bwrap",
            networking: "own",
            networkLink: link,
            egress: { operator: { allow: [{ kind: "cidr", cidr: "198.19.0.0/16", port: null }] } },
          });
          const c = await startSandbox(open, root);
          const gateway = hostAddressOf(await addressOf(c.dir));
          const everywhere = createHttpServer((_q, r) => r.end("host-any"));
          const port = String(await listen(everywhere, 0, "0.0.0.0"));
          try {
            expect(await probeFromHost("http", gateway, port)).toBe("reply host-any");
            expect(await probe(c, "tcp", gateway, port)).toMatch(REFUSED);
            const other = new URL(a.url);
            expect(await probeFromHost("tcp", other.hostname, other.port)).toBe("open");
            expect(await probe(c, "tcp", other.hostname, other.port)).toMatch(REFUSED);
            expect(await probe(c, "tcp", hostAddressOf(other.hostname), port)).toMatch(REFUSED);
            // Its own egress proxy, on its own pair's end, yes; another sandbox's, no.
            expect(await probe(c, "tcp", gateway, "3128")).toBe("open");
            expect(await probeFromHost("tcp", hostAddressOf(other.hostname), "3128")).toBe("open");
            expect(await probe(c, "tcp", hostAddressOf(other.hostname), "3128")).toMatch(REFUSED);
            // Nor does its proxy, which connects from the host, carry it to another sandbox.
            const proxied = await runBash(
              c.url,
              c.key,
              `curl -s --max-time 10 -o /dev/null -w '%{http_code}' ${a.url}/`,
            );
            expect(proxied.stdout.trim()).toBe("403");
          } finally {
            everywhere.close();
            await open.delete(c.id);
            await open.close();
          }
        },
      );

      it("refuses a LAN host by default; reaches it once the operator allows it", async () => {
        expect(await probeFromHost("http", lan.address, "8080")).toBe("reply lan-host");
        expect(await probe(a, "http", lan.address, "8080")).toMatch(REFUSED);
        expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
      });

      it("reaches an operator exception on the host's loopback at the same address, while its policy allows", async () => {
        const port = String(portOf(llm));
        expect(await probeFromHost("http", "127.0.0.1", port)).toBe("reply local-llm");
        expect(await probe(b, "http", "127.0.0.1", port)).toBe("reply local-llm");
        expect(await probe(a, "tcp", "127.0.0.1", port)).toMatch(REFUSED);
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({ allowInternet: false }));
        expect(await probe(b, "tcp", "127.0.0.1", port)).toMatch(REFUSED);
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({}));
      });

      it("reports refused connections to addresses when asked, once each", async () => {
        // What the earlier tests refused is reported by this first pull.
        await isolated.reportEgressDenials(a.id);
        const ofLan = () =>
          denials.filter((d) => d.sandboxId === a.id && d.destination === `${lan.address}:8080`);
        const before = ofLan().length;
        expect(await probe(a, "tcp", lan.address, "8080")).toMatch(REFUSED);
        await isolated.reportEgressDenials(a.id);
        expect(ofLan().slice(before)).toEqual([
          expect.objectContaining({ rule: "non-public range (reserved)" }),
        ]);
        await isolated.reportEgressDenials(a.id);
        expect(ofLan()).toHaveLength(before + 1);
      });

      it("reports a refusal made after a pull that found nothing new, TCP and UDP", async () => {
        // The launched process is in the namespace: the pull reads its counters, not nft.
        const state = JSON.parse(await readFile(path.join(b.dir, "sandbox.json"), "utf8"));
        const namespace = netnsPathOf(await namespaceOf(b.dir));
        expect(readRefusalMarks(namespace, state.pid)).not.toBeNull();
        expect(await probe(b, "tcp", lan.address, "8080")).toBe("open");
        expect(await probeFromHost("udp", lan.address, "53")).toBe("reply ping");
        const cidr = { kind: "cidr" as const, cidr: `${lan.address}/32`, port: null };
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({ denyOut: [cidr] }));
        await expectRefusalsPulled({
          address: lan.address,
          probe: (...args) => probe(b, ...args),
          pull: () => operatorAllowed.reportEgressDenials(b.id),
          reported: (destination) =>
            denials.filter((d) => d.sandboxId === b.id && d.destination === destination),
        });
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({}));
      });

      it("resolves names through its own resolver only; DNS to another server is refused", async () => {
        expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
        expect(await probeFromHost("udp", lan.address, "53")).toBe("reply ping");
        // The operator allows the LAN host, but not as a resolver.
        expect(await probe(b, "udp", lan.address, "53")).toMatch(REFUSED);
      });

      it("refuses a denied name and reports it", async () => {
        const id = b.id;
        await operatorAllowed.setEgressPolicy(
          id,
          lanPolicy({
            denyOut: [{ kind: "host", name: "sandbox-test.internal", wildcard: true, port: null }],
          }),
        );
        expect(await probe(b, "lookup", LAN_NAME)).toBe("ENOTFOUND");
        expect(denials).toContainEqual(
          expect.objectContaining({
            sandboxId: id,
            destination: `${LAN_NAME}:53`,
            rule: "deny_out *.sandbox-test.internal",
          }),
        );
        await operatorAllowed.setEgressPolicy(id, lanPolicy({}));
        expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
      });

      it("follows a new policy for new connections: deny_out, allow_out over deny_out, allow_internet false", async () => {
        const cidr = { kind: "cidr" as const, cidr: `${lan.address}/32`, port: null };
        expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({ denyOut: [cidr] }));
        expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
        await operatorAllowed.setEgressPolicy(
          b.id,
          lanPolicy({ denyOut: [cidr], allowOut: [{ ...cidr, port: 8080 }] }),
        );
        expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
        // Without allow_internet, an operator exception alone does not let it through...
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({ allowInternet: false }));
        expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
        // ...allow_out does; and the name is refused unless allow_out names it.
        await operatorAllowed.setEgressPolicy(
          b.id,
          lanPolicy({
            allowInternet: false,
            allowOut: [{ kind: "host", name: LAN_NAME, wildcard: false, port: 8080 }],
          }),
        );
        expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
        expect(await probe(b, "http", LAN_NAME, "8080")).toBe("reply lan-host");
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({}));
      });

      it("lets an allowed name open a non-public address only where the operator opens it", async () => {
        const byName = { kind: "host" as const, name: LAN_NAME, wildcard: false, port: null };
        await operatorAllowed.setEgressPolicy(
          b.id,
          lanPolicy({ allowInternet: false, allowOut: [byName] }),
        );
        expect(await probe(b, "http", LAN_NAME, "8080")).toBe("reply lan-host");
        // The same policy where the operator keeps the LAN closed: the name resolves, the address
        // it names stays refused (a name cannot rebind into a private range).
        await isolated.setEgressPolicy(
          a.id,
          lanPolicy({ allowInternet: false, allowOut: [byName] }),
        );
        expect(await probe(a, "lookup", LAN_NAME)).toBe(lan.address);
        expect(await probe(a, "http", LAN_NAME, "8080")).toMatch(REFUSED);
        await isolated.setEgressPolicy(a.id, lanPolicy({}));
        await operatorAllowed.setEgressPolicy(b.id, lanPolicy({}));
      });

      it("reports what it refused when paused, unasked", async () => {
        expect(await probe(a, "tcp", lan.address, "8081")).toMatch(REFUSED);
        const ofPort = () =>
          denials.filter((d) => d.sandboxId === a.id && d.destination === `${lan.address}:8081`);
        expect(ofPort()).toEqual([]);
        await isolated.pause(a.id);
        expect(ofPort()).toEqual([
          expect.objectContaining({ rule: "non-public range (reserved)" }),
        ]);
        await isolated.resume(a.id);
      });

      it("keeps its network over pause and resume", async () => {
        await operatorAllowed.pause(b.id);
        expect((await operatorAllowed.inspect(b.id)).state).toBe("paused");
        await operatorAllowed.resume(b.id);
        expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
      });

      it("is adopted with its network and policy by a new runtime after the old one is closed", async () => {
        await operatorAllowed.setEgressPolicy(
          b.id,
          lanPolicy({ denyOut: [{ kind: "cidr", cidr: `${lan.address}/32`, port: null }] }),
        );
        await operatorAllowed.close();
        const successor = fixture.createRuntime(operatorRoot, {
          sandboxing: "bwrap",
          networking: "own",
          networkLink: link,
          egress: { operator: operatorPolicy },
          resolveName: async (name) => (name === LAN_NAME ? [lan.address] : null),
        });
        const adopted = await successor.inspect(b.id);
        expect(adopted.state).toBe("running");
        expect(adopted.agentServerUrl).toBe(b.url);
        expect(await probe(b, "http", lan.address, "8080")).toMatch(REFUSED);
        await successor.setEgressPolicy(b.id, lanPolicy({}));
        expect(await probe(b, "http", lan.address, "8080")).toBe("reply lan-host");
        // Its resolver answers again.
        expect(await probe(b, "lookup", LAN_NAME)).toBe(lan.address);
        operatorAllowed = successor;
      });

      it("relaunches into the same namespace after its agent server died, its network intact", async () => {
        const name = await namespaceOf(a.dir);
        process.kill(await agentServerHostPid(a.dir), "SIGKILL");
        await vi.waitFor(async () => expect((await isolated.inspect(a.id)).state).toBe("exited"));
        const resumed = await isolated.resume(a.id);
        await isolated.waitUntilReady(a.id, READY_TIMEOUT_MS);
        expect(await namespaceOf(a.dir)).toBe(name);
        // With veth the address is the namespace's, kept with it; pasta binds a new host port.
        if (link === "veth") expect(resumed.agentServerUrl).toBe(a.url);
        a.url = resumed.agentServerUrl as string;
        expect(await probe(a, "lookup", LAN_NAME)).toBe(lan.address);
        expect(await probe(a, "http", lan.address, "8080")).toMatch(REFUSED);
        expect(await probe(a, "tcp", "127.0.0.1", String(portOf(hostV4)))).toMatch(REFUSED);
      });

      it("takes namespaces from a pool and removes the pool's unused ones on close", async () => {
        const root = await fixture.createRootDir();
        const prefix = `ssn-p${createHash("sha256").update(root).digest("hex").slice(0, 10)}-`;
        const pooled = () =>
          exec("ip", ["netns", "list"]).then(({ stdout }) =>
            stdout
              .split("\n")
              .map((line) => line.split(" ")[0] ?? "")
              .filter((name) => name.startsWith(prefix)),
          );
        const runtime = fixture.createRuntime(root, {
          sandboxing: "bwrap",
          networking: "own",
          networkLink: link,
        });
        // The pool fills in the background from the constructor on.
        await vi.waitFor(async () => expect(await pooled()).toHaveLength(POOL_SIZE), {
          timeout: 20_000,
        });
        const ready = await pooled();
        const sandbox = await startSandbox(runtime, root);
        const name = await namespaceOf(sandbox.dir);
        expect(ready).toContain(name);
        await runtime.delete(sandbox.id);
        expect(existsSync(netnsPathOf(name))).toBe(false);
        await runtime.close();
        expect(await pooled()).toEqual([]);
      });

      it("removes an earlier runtime's unused pool namespaces at start, never a sandbox's", async () => {
        const root = await fixture.createRootDir();
        const prefix = `ssn-p${createHash("sha256").update(root).digest("hex").slice(0, 10)}-`;
        const options = { sandboxing: "bwrap", networking: "own", networkLink: link } as const;
        const first = fixture.createRuntime(root, options);
        const pooled = async () =>
          (await readdir("/run/netns")).filter((name) => name.startsWith(prefix));
        await vi.waitFor(async () => expect(await pooled()).toHaveLength(POOL_SIZE), {
          timeout: 20_000,
        });
        const sandbox = await startSandbox(first, root);
        const own = await namespaceOf(sandbox.dir);
        expect(own.startsWith(prefix)).toBe(true);
        // A control plane killed before its close leaves its pool's namespaces (made here by hand).
        const left = [`${prefix}0badf00d`, `${prefix}0badf00e`];
        for (const name of left) await exec("ip", ["netns", "add", name]);
        const successor = fixture.createRuntime(root, options);
        await vi.waitFor(
          () => expect(left.filter((name) => existsSync(netnsPathOf(name)))).toEqual([]),
          { timeout: 20_000 },
        );
        // The namespace the sandbox took from the pool is its own: it stays, and so does the sandbox.
        expect(existsSync(netnsPathOf(own))).toBe(true);
        expect((await successor.inspect(sandbox.id)).state).toBe("running");
        await successor.delete(sandbox.id);
        await first.close();
        await successor.close();
      });

      it("leaves no namespace, pasta, veth pair or ruleset behind when deleted", async () => {
        const name = await namespaceOf(b.dir);
        expect(existsSync(netnsPathOf(name))).toBe(true);
        const pasta: number[] = [];
        for (const { pid } of await findSandboxProcesses(b.dir)) {
          if ((await readCmdline(pid))?.[0]?.includes("pasta")) pasta.push(pid);
        }
        expect(pasta.length).toBe(link === "pasta" ? 1 : 0);
        const gateway = link === "veth" ? hostAddressOf(await addressOf(b.dir)) : null;
        const hostAddresses = async () => (await exec("ip", ["-4", "-o", "addr", "show"])).stdout;
        if (gateway) expect(await hostAddresses()).toContain(` ${gateway}/30 `);
        await operatorAllowed.delete(b.id);
        expect(existsSync(netnsPathOf(name))).toBe(false);
        const { stdout } = await exec("ip", ["netns", "list"]);
        expect(stdout).not.toContain(name);
        for (const pid of pasta) expect(await readProcState(pid)).toBe("gone");
        // The kernel removes the pair shortly after its namespace.
        if (gateway) {
          await vi.waitFor(async () =>
            expect(await hostAddresses()).not.toContain(` ${gateway}/30 `),
          );
        }
      });

      it("makes the namespace at register, and delete removes it without a launch", async () => {
        const sandboxId = `sb_${randomUUID().slice(0, 8)}`;
        await isolated.register({
          sandboxId,
          ownerId: "user_1",
          specId: "default",
          sessionApiKey: "k".repeat(24),
          env: {},
        });
        const name = await namespaceOf(resolveSandboxPaths(isolatedRoot, sandboxId).dir);
        expect(existsSync(netnsPathOf(name))).toBe(true);
        await isolated.delete(sandboxId);
        expect(existsSync(netnsPathOf(name))).toBe(false);
      });
    },
  );
}

/** Where no veth pair can be made (IPv4 forwarding off, no netns); never in CI, where it fails. */
const vethSkip =
  LINKS.includes("veth") || process.env.CI === "true"
    ? null
    : `no veth link here: ${vethUnusable()}`;
function vethUnusable(): string {
  if (!netns.usable) return netns.reason;
  const veth = chooseLink(netns, "veth");
  return veth.usable ? "" : veth.reason;
}
if (vethSkip) console.warn(`[network tests] veth launch skipped: ${vethSkip}`);

describe.skipIf(vethSkip !== null)("ProcessRuntime: a launch on a veth pair", () => {
  const fixture = new RuntimeFixture();
  afterAll(async () => {
    await fixture.cleanUp();
  });

  it("records its run while the agent server starts, and no run once that start fails", async () => {
    const rootDir = await fixture.createRootDir();
    const runtime = fixture.createRuntime(rootDir, {
      sandboxing: "bwrap",
      networking: "own",
      networkLink: "veth",
      listenTimeoutMs: READY_TIMEOUT_MS,
    });
    const sandboxId = `sb_${randomUUID().slice(0, 8)}`;
    const paths = resolveSandboxPaths(rootDir, sandboxId);
    // Never prints a listening line: the start waits while the record is read.
    const starting = runtime.start({
      sandboxId,
      ownerId: "user_1",
      specId: "default",
      sessionApiKey: `key-${randomUUID()}`,
      env: {},
      command: ["sh", "-c", "exec sleep 600"],
    });
    await vi.waitFor(
      async () => expect((await readSandboxState(paths))?.pid).toEqual(expect.any(Number)),
      { timeout: READY_TIMEOUT_MS, interval: 20 },
    );
    const recorded = await readSandboxState(paths);
    expect(recorded?.port).toBe(INSIDE_AGENT_PORT);
    expect((await readCmdline(recorded?.pid ?? 0))?.[0]).toMatch(/bwrap$/);

    await killSandboxProcesses(paths.dir);
    expect(await starting).toMatchObject({ state: "exited", agentServerUrl: null });
    expect(await readSandboxState(paths)).toMatchObject({ pid: null, port: null });
  });
});
