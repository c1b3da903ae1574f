import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * The host's system directories a sandbox sees, read-only: what node, bash and the usual tools
 * need to run. On merged-/usr systems `/bin`, `/lib`, ... are symlinks into /usr and are recreated
 * as such. Nothing else of the host's filesystem: not /home, /root, /srv, /var, /run, /opt, /mnt,
 * the control plane's data directory or its checkout.
 */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/**
 * The public parts of the host's /etc a sandbox gets, read-only, where they exist: the dynamic
 * linker's configuration, `alternatives` (Debian's /usr/bin/awk and friends point there), CA
 * certificates (never /etc/ssl/private), time zone, DNS configuration (the network is shared),
 * shell start-up files. Files are copied (a symlink into the system directories, like Debian's
 * localtime, is kept a symlink), directories bound (shared-view.ts). passwd, group,
 * hosts, hostname and nsswitch.conf are the sandbox's own (see sandbox-etc.ts).
 */
export const HOST_ETC_ENTRIES = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates",
  "ca-certificates.conf",
  "debian_version",
  "gai.conf",
  "host.conf",
  "inputrc",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "mime.types",
  "os-release",
  "pki/ca-trust",
  "pki/tls/certs",
  "profile",
  "protocols",
  "resolv.conf",
  "services",
  "shells",
  "ssl/certs",
  "ssl/openssl.cnf",
  "terminfo",
  "timezone",
];

/** bwrap arguments for the system directories and the node binary's own directory. */
export function systemViewArgs(nodePath: string): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstatSync(dir, { throwIfNoEntry: false });
    if (info?.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (info?.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  // A node from nvm, Volta or a tarball lives outside the system directories: its directory is
  // shown at the same path, so the PATH and the recorded argv stay valid inside.
  const nodeDir = path.dirname(realPath(nodePath));
  if (!isWithinSystemDirs(nodeDir)) args.push("--ro-bind", nodeDir, nodeDir);
  return args;
}

/** Whether a path lies within the system directories every bubblewrapped sandbox sees as they are. */
export function isWithinSystemDirs(dir: string): boolean {
  return SYSTEM_DIRS.some((system) => {
    const real = realPath(system);
    return dir === real || dir.startsWith(`${real}/`);
  });
}

// A path that does not exist stays as it is; bwrap then says what is missing.
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
