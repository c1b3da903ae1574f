import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { SANDBOX_HOSTNAME, SANDBOX_USER } from "./sandbox-layout";

/** A file the sandbox sees read-only: written on the host, bound at `inside`. */
export interface GeneratedFile {
  host: string;
  inside: string;
}

/**
 * Writes the sandbox's own /etc files into `viewDir` (a directory of the sandbox that is not
 * mounted into it, so the sandbox cannot change them) and says where each one goes. passwd and
 * group name only the sandbox's user (and nobody, which unmapped ids show as): the host's users
 * and groups are none of a sandbox's business.
 */
export async function writeSandboxEtc(viewDir: string, uid: number): Promise<GeneratedFile[]> {
  const etc = path.join(viewDir, "etc");
  await mkdir(etc, { recursive: true, mode: 0o755 });
  const { name, home } = SANDBOX_USER;
  const files: Record<string, string> = {
    passwd: [
      `${name}:x:${uid}:${uid}:${name}:${home}:/bin/bash`,
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    ].join("\n"),
    group: [`${name}:x:${uid}:`, "nogroup:x:65534:"].join("\n"),
    hosts: [
      "127.0.0.1 localhost",
      `127.0.1.1 ${SANDBOX_HOSTNAME}`,
      "::1 localhost ip6-localhost ip6-loopback",
    ].join("\n"),
    hostname: SANDBOX_HOSTNAME,
    "nsswitch.conf": ["passwd: files", "group: files", "shadow: files", "hosts: files dns"].join(
      "\n",
    ),
  };
  // At once rather than one after another: every launch writes them (~3 ms serially here).
  return Promise.all(
    Object.entries(files).map(async ([file, text]) => {
      const host = path.join(etc, file);
      await writeFile(host, `${text}\n`, { mode: 0o644 });
      return { host, inside: `/etc/${file}` };
    }),
  );
}

/**
 * The `package.json` shown beside the agent-server bundle inside the sandbox: only its `type`,
 * taken from the package.json nearest to the bundle on the host, so that node reads the bundle as
 * the module kind it was built as (as it would on the host; the image writes the same file).
 */
export async function writeBundlePackageJson(viewDir: string, entry: string): Promise<string> {
  const file = path.join(viewDir, "agent-server-package.json");
  await mkdir(viewDir, { recursive: true });
  await writeFile(file, `${JSON.stringify({ type: moduleTypeOf(entry) })}\n`, { mode: 0o644 });
  return file;
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
