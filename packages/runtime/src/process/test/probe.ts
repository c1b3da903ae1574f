import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { EgressDenial } from "@sandbox-server/egress";
import { expect } from "vitest";

/**
 * One connection attempt, as a script run the same way on the host (the control) and inside a
 * sandbox: prints `open`, `reply <text>`, the addresses of a lookup, or the error code — `timeout`
 * only when nothing answered at all within 5 s (a refusal is meant to be fast).
 */
export const PROBE_SCRIPT = `
const [kind, host, port] = process.argv.slice(2);
const done = (r) => { console.log(r); process.exit(0); };
setTimeout(() => done("timeout"), 5000);
const net = require("net");
if (kind === "tcp" || kind === "unix") {
  const s = kind === "tcp" ? net.connect({ host, port: Number(port) }) : net.connect({ path: "\\0" + host });
  s.on("connect", () => done("open"));
  s.on("error", (e) => done(e.code));
} else if (kind === "udp") {
  const s = require("dgram").createSocket(host.includes(":") ? "udp6" : "udp4");
  s.on("message", (m) => done("reply " + m));
  s.on("error", (e) => done(e.code));
  s.connect(Number(port), host, () => { s.send("ping"); setTimeout(() => s.send("ping"), 200); });
} else if (kind === "http") {
  fetch("http://" + (host.includes(":") ? "[" + host + "]" : host) + ":" + port + "/").then((r) => r.text()).then((t) => done("reply " + t), (e) => done(e.cause?.code ?? e.message));
} else if (kind === "lookup") {
  require("dns").lookup(host, { all: true }, (e, a) => done(e ? e.code : a.map((x) => x.address).join(",")));
}
`;

/**
 * A client of the proxy the sandbox's HTTP_PROXY names, run inside it: `get <absolute URL>` or
 * `connect <host:port>`; prints `<status> <body>` (`200` alone for an opened tunnel) or the error
 * code. No single quote in it: it is passed as `node -e '…'`.
 */
export const PROXY_CLIENT_SCRIPT = `
const [kind, target] = process.argv.slice(2);
const done = (r) => { console.log(r); process.exit(0); };
setTimeout(() => done("timeout"), 10000);
const proxy = new URL(process.env.HTTP_PROXY);
const http = require("http");
const text = (status, body) => done(status + " " + body.trim());
if (kind === "get") {
  http.get({ host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } }, (r) => {
    let b = ""; r.on("data", (d) => { b += d; }); r.on("end", () => text(r.statusCode, b));
  }).on("error", (e) => done(e.code));
} else {
  http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: target }).on("connect", (r, s, h) => {
    if (r.statusCode === 200) done("200");
    let b = h.toString(); s.on("data", (d) => { b += d; }); s.on("end", () => text(r.statusCode, b));
  }).on("error", (e) => done(e.code)).end();
}
`;

const exec = promisify(execFile);

/** Writes the probe where a sandbox sees it (`/workspace/probe.cjs`). */
export async function installProbe(workspaceDir: string): Promise<void> {
  await writeFile(path.join(workspaceDir, "probe.cjs"), PROBE_SCRIPT);
}

/** The probe run on the host. */
export async function probeFromHost(...args: string[]): Promise<string> {
  const { stdout } = await exec(process.execPath, ["-e", PROBE_SCRIPT, "probe", ...args]);
  return stdout.trim();
}

export interface PulledRefusals {
  /** The LAN host the sandbox's policy refuses now. */
  address: string;
  /** The probe inside the sandbox. */
  probe: (...args: string[]) => Promise<string>;
  /** The runtime's `reportEgressDenials` for the sandbox. */
  pull: () => Promise<void>;
  /** The denials reported for the sandbox so far, to `destination`. */
  reported: (destination: string) => EgressDenial[];
}

/**
 * A refused TCP connect, then a refused UDP send, each made after a pull that found nothing new
 * (which reads no refused set), is reported by the next pull; so is the same refusal again,
 * while the destination's element of the refused set still counts the first.
 */
export async function expectRefusalsPulled(sandbox: PulledRefusals): Promise<void> {
  for (const [kind, port] of [
    ["tcp", "8080"],
    ["udp", "53"],
  ] as const) {
    const destination = `${sandbox.address}:${port}`;
    for (const times of [1, 2]) {
      await sandbox.pull();
      await sandbox.pull();
      expect(sandbox.reported(destination)).toHaveLength(times - 1);
      expect(await sandbox.probe(kind, sandbox.address, port)).toMatch(/^E[A-Z_]+$/);
      await sandbox.pull();
      expect(sandbox.reported(destination)).toHaveLength(times);
    }
  }
}
