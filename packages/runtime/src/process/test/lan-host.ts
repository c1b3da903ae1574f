import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";

const exec = promisify(execFile);

/**
 * A "LAN host" for network tests: a network namespace of the test's own, joined to the host by a
 * veth pair on 198.18.<n>.0/30 (benchmarking space: refused to sandboxes unless the operator
 * allows it), running an HTTP server on :8080 (`/blob?mib=N` streams N MiB, anything else answers
 * `lan-host`) and a UDP echo on :53. The host reaches it as any machine on its LAN; so does
 * pasta, on a sandbox's behalf.
 */
export class LanHost {
  readonly name = `ssnt-lan-${randomBytes(3).toString("hex")}`;
  readonly subnet = 1 + Math.floor(Math.random() * 250);
  readonly address = `198.18.${this.subnet}.2`;
  private readonly hostSide = `ssnt-${randomBytes(3).toString("hex")}`;
  private server: ChildProcess | null = null;

  async start(): Promise<void> {
    const ip = (...args: string[]) => exec("ip", args);
    await ip("netns", "add", this.name);
    await ip(
      "link",
      "add",
      this.hostSide,
      "type",
      "veth",
      "peer",
      "name",
      "eth0",
      "netns",
      this.name,
    );
    await ip("addr", "add", `198.18.${this.subnet}.1/30`, "dev", this.hostSide);
    await ip("link", "set", this.hostSide, "up");
    await ip("-n", this.name, "addr", "add", `${this.address}/30`, "dev", "eth0");
    await ip("-n", this.name, "link", "set", "eth0", "up");
    await ip("-n", this.name, "link", "set", "lo", "up");
    await ip("-n", this.name, "route", "add", "default", "via", `198.18.${this.subnet}.1`);
    const program = `
      const chunk = Buffer.alloc(1 << 20, 120);
      require("http").createServer((q, r) => {
        const url = new URL(q.url, "http://lan-host");
        if (url.pathname !== "/blob") return r.end("lan-host");
        let left = Number(url.searchParams.get("mib"));
        r.writeHead(200, { "content-length": String(left * chunk.length) });
        const pump = () => {
          while (left > 0) { left--; if (!r.write(chunk)) return r.once("drain", pump); }
          r.end();
        };
        pump();
      }).listen(8080, "${this.address}");
      const u = require("dgram").createSocket("udp4");
      u.on("message", (m, p) => u.send(m, p.port, p.address));
      u.bind(53, "${this.address}", () => console.log("ready"));`;
    this.server = spawn("ip", ["netns", "exec", this.name, process.execPath, "-e", program], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.stdout?.once("data", () => resolve());
      this.server?.once("exit", (code) => reject(new Error(`LAN host server exited (${code})`)));
    });
  }

  async stop(): Promise<void> {
    if (this.server?.pid) this.server.kill("SIGKILL");
    await exec("ip", ["link", "del", this.hostSide]).catch(() => undefined);
    await exec("ip", ["netns", "del", this.name]).catch(() => undefined);
  }
}
