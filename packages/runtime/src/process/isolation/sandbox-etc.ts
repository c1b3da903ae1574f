import { readFileSync } from "node:fs";
import path from "node:path";
import { SANDBOX_HOSTNAME, SANDBOX_USER } from "./sandbox-layout";

/**
 * The sandbox's own /etc files, by name (shared-view.ts writes them where no sandbox can change
 * them). passwd and group name only the sandbox's user (and nobody, which unmapped ids show as):
 * the host's users and groups are none of a sandbox's business. In a network namespace of its own
 * the resolver is the one on its loopback (the control plane's, forwarded by pasta).
 */
export function sandboxEtcFiles(uid: number, ownNetwork = false): Record<string, string> {
  const { name, home } = SANDBOX_USER;
  const files: Record<string, string[]> = {
    passwd: [
      `${name}:x:${uid}:${uid}:${name}:${home}:/bin/bash`,
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    ],
    group: [`${name}:x:${uid}:`, "nogroup:x:65534:"],
    hosts: [
      "127.0.0.1 localhost",
      `127.0.1.1 ${SANDBOX_HOSTNAME}`,
      "::1 localhost ip6-localhost ip6-loopback",
    ],
    hostname: [SANDBOX_HOSTNAME],
    "nsswitch.conf": ["passwd: files", "group: files", "shadow: files", "hosts: files dns"],
    ...(ownNetwork ? { "resolv.conf": ["nameserver 127.0.0.1"] } : {}),
  };
  return Object.fromEntries(
    Object.entries(files).map(([file, lines]) => [file, `${lines.join("\n")}\n`]),
  );
}

/**
 * The `package.json` shown beside the agent-server bundle inside the sandbox: only its `type`,
 * taken from the package.json nearest to the bundle on the host, so that node reads the bundle as
 * the module kind it was built as (as it would on the host; the image writes the same file).
 */
export function bundlePackageJson(entry: string): string {
  return `${JSON.stringify({ type: moduleTypeOf(entry) })}\n`;
}

function moduleTypeOf(entry: string): string {
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      const type = typeof parsed === "object" && parsed !== null && "type" in parsed;
      return type && parsed.type === "module" ? "module" : "commonjs";
    } catch {
      if (path.dirname(dir) === dir) return "commonjs";
    }
  }
}
