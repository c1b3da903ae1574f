import { execFile } from "node:child_process";
import { createSocket, type Socket } from "node:dgram";
import { promisify } from "node:util";
import type { SandboxEgressPolicy } from "@sandbox-server/egress";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../logger";
import { LanHost } from "../test/lan-host";
import { chooseLink, detectNetns } from "./detect-netns";
import { buildAnswer, DNS_TYPE, parseQuery, RCODE } from "./dns-message";
import { RESOLVER_PORT } from "./egress-ruleset";
import { netnsPathOf, removeNetns } from "./sandbox-network";
import { decideName, SandboxResolver } from "./sandbox-resolver";
import { createNetnsWithVeth, hostAddressOf } from "./veth-link";

const open: SandboxEgressPolicy = { allowInternet: true, allowOut: [], denyOut: [] };
const host = (name: string, port: number | null = null, wildcard = false) =>
  ({ kind: "host", name, wildcard, port }) as const;

/** A query as a stub resolver sends it: one question, recursion desired. */
function query(name: string, type: number): Buffer {
  const labels = name
    .split(".")
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label)]));
  const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(1, 2);
  return Buffer.concat([header, ...labels, Buffer.from([0]), tail]);
}

describe("the resolver's DNS messages", () => {
  it("reads the question and answers it with the addresses", () => {
    const parsed = parseQuery(query("PyPI.org", DNS_TYPE.A));
    expect(parsed).toMatchObject({ id: 0x1234, name: "pypi.org", type: DNS_TYPE.A });
    if (!parsed) return;
    const answer = buildAnswer(parsed, RCODE.NOERROR, [Buffer.from([151, 101, 0, 223])]);
    expect(answer.readUInt16BE(0)).toBe(0x1234);
    expect(answer.readUInt16BE(2)).toBe(0x8180);
    expect(answer.readUInt16BE(6)).toBe(1);
    expect([...answer.subarray(-4)]).toEqual([151, 101, 0, 223]);
    expect(buildAnswer(parsed, RCODE.NXDOMAIN).readUInt16BE(2) & 0xf).toBe(RCODE.NXDOMAIN);
  });

  it("ignores what is not a query", () => {
    expect(parseQuery(Buffer.from([1, 2, 3]))).toBeNull();
    const response = query("a.b", DNS_TYPE.A);
    response[2] = 0x81;
    expect(parseQuery(response)).toBeNull();
  });
});

describe("decideName", () => {
  it("refuses metadata and localhost names before any lookup", () => {
    expect(decideName("metadata.google.internal", open)).toEqual({
      answer: false,
      rule: "metadata",
    });
    expect(decideName("db.localhost", open)).toMatchObject({ answer: false });
  });

  it("lets allow_out win over deny_out, and wildcards match only below their name", () => {
    const policy = {
      ...open,
      allowOut: [host("api.github.com", 443)],
      denyOut: [host("github.com", null, true)],
    };
    expect(decideName("api.github.com", policy)).toEqual({
      answer: true,
      sets: [
        { set: "allow", port: 443 },
        { set: "deny", port: null },
      ],
    });
    expect(decideName("gist.github.com", policy)).toEqual({
      answer: false,
      rule: "deny_out *.github.com",
    });
    expect(decideName("github.com", policy)).toEqual({ answer: true, sets: [] });
  });

  it("answers a name denied on one port only, and marks its addresses for that port", () => {
    expect(decideName("example.com", { ...open, denyOut: [host("example.com", 80)] })).toEqual({
      answer: true,
      sets: [{ set: "deny", port: 80 }],
    });
  });
});

const netns = detectNetns();
const tools = netns.usable && chooseLink(netns, "veth").usable ? netns : null;
const exec = promisify(execFile);

/**
 * Sends `message` (hex) over UDP from inside the namespace `path` and prints the reply (hex), or
 * `silent` when none comes within a second (a reply on these links takes well under that).
 */
const SEND_FROM_NAMESPACE = `
  const [host, port, hex] = process.argv.slice(1);
  const socket = require("dgram").createSocket("udp4");
  const timer = setTimeout(() => { console.log("silent"); process.exit(0); }, 1000);
  socket.on("message", (reply) => { clearTimeout(timer); console.log(reply.toString("hex")); process.exit(0); });
  socket.send(Buffer.from(hex, "hex"), Number(port), host);`;

async function sendFrom(path: string, host: string, port: number, message: Buffer) {
  const args = [`--net=${path}`, process.execPath, "-e", SEND_FROM_NAMESPACE];
  const { stdout } = await exec("nsenter", [...args, host, String(port), message.toString("hex")]);
  return stdout.trim();
}

describe.runIf(tools !== null)("the resolver on the host's end of a veth pair", () => {
  const name = `ssnt-res-${process.pid}`;
  const lan = new LanHost();
  const resolver = new SandboxResolver(
    tools as NonNullable<typeof tools>,
    () => ({ policy: open, operator: { allow: [] }, netns: name }),
    () => undefined,
    silentLogger,
    async () => ["192.0.2.7"],
  );
  let host: string;
  let echo: Socket;

  beforeAll(async () => {
    if (!tools) return;
    const address = await createNetnsWithVeth(tools, name, []);
    host = hostAddressOf(address);
    await lan.start();
    await resolver.open("sb_resolver", RESOLVER_PORT, host, address);
    echo = createSocket("udp4");
    echo.on("message", (message, from) => echo.send(message, from.port, from.address));
    await new Promise<void>((resolve) => echo.bind(0, host, resolve));
  });

  afterAll(async () => {
    resolver.closeAll();
    echo?.close();
    await lan.stop();
    if (tools) await removeNetns(tools, name);
  });

  it("answers its own namespace's address only; another one reaching that end gets no answer", async () => {
    const asked = query("pypi.org", DNS_TYPE.A);
    // The sandbox asks as its programs do: its loopback's port 53, carried to the host's end.
    const answer = await sendFrom(netnsPathOf(name), "127.0.0.1", RESOLVER_PORT, asked);
    expect(answer).toMatch(/^1234/);
    expect(answer.endsWith("c0000207")).toBe(true);
    // The LAN host reaches the host's end of the pair (an echo there answers it)...
    const lanPath = netnsPathOf(lan.name);
    const ping = Buffer.from("ping");
    expect(await sendFrom(lanPath, host, echo.address().port, ping)).toBe(ping.toString("hex"));
    // ...but the resolver there is not its own.
    expect(await sendFrom(lanPath, host, RESOLVER_PORT, asked)).toBe("silent");
  });
});
