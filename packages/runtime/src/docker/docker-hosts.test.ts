import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeDockerHost, parseDockerHosts } from "./docker-hosts";

describe("parseDockerHosts", () => {
  it("reads unix and tcp hosts with their publish addresses and limits", () => {
    const hosts = parseDockerHosts(
      "local=unix:///var/run/docker.sock, h2=tcp://10.213.0.12:2375@10.213.0.12;max=8",
    );
    expect(
      hosts.map((host) => [host.name, host.publishAddress, host.remote, host.maxSandboxes]),
    ).toEqual([
      ["local", "127.0.0.1", false, undefined],
      ["h2", "10.213.0.12", true, 8],
    ]);
    expect(hosts[0]?.connection.socketPath).toBe("/var/run/docker.sock");
    expect(hosts[1]?.connection).toMatchObject({
      host: "10.213.0.12",
      port: 2375,
      protocol: "http",
    });
    expect(describeDockerHost(hosts[1] ?? expect.fail())).toBe("h2 (tcp://10.213.0.12:2375)");
  });

  it("takes the last @ as the address, so ssh users still work", () => {
    const [host] = parseDockerHosts("far=ssh://me@build-3@192.168.4.7");
    expect(host?.connection).toMatchObject({ protocol: "ssh", host: "build-3", username: "me" });
    expect(host?.publishAddress).toBe("192.168.4.7");
  });

  it("uses TLS for tcp hosts, with a host's own certificate directory when there is one", () => {
    const certs = mkdtempSync(path.join(tmpdir(), "docker-hosts-certs-"));
    writeFileSync(path.join(certs, "ca.pem"), "shared ca");
    mkdirSync(path.join(certs, "h2"));
    writeFileSync(path.join(certs, "h2", "ca.pem"), "h2 ca");
    const hosts = parseDockerHosts("h1=tcp://10.0.0.1@10.0.0.1,h2=tcp://10.0.0.2@10.0.0.2", {
      tlsVerify: true,
      certPath: certs,
    });
    expect(hosts.map((host) => [host.connection.port, String(host.connection.ca)])).toEqual([
      [2376, "shared ca"],
      [2376, "h2 ca"],
    ]);
  });

  it.each([
    ["", "lists no host"],
    ["tcp://10.0.0.2:2375@10.0.0.2", "write name=endpoint@address"],
    ["h 1=unix:///a.sock", "host name"],
    ["h1=tcp://10.0.0.2:2375", "need the address"],
    ["h1=tcp://10.0.0.2:2375@somewhere", "is not an IP address"],
    ["h1=ftp://x@10.0.0.2", "unsupported scheme"],
    ["h1=unix:///a.sock;max=0", "only max=N"],
    ["h1=unix:///a.sock,h1=unix:///b.sock", "appears twice"],
  ])("refuses %j with a message naming the problem", (value, why) => {
    expect(() => parseDockerHosts(value)).toThrow(why);
  });
});
