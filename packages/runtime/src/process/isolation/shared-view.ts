import {
  copyFile,
  lstat,
  mkdir,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import { bundlePackageJson, sandboxEtcFiles } from "./sandbox-etc";
import { HOST_ETC_ENTRIES, isWithinSystemDirs } from "./system-view";

/** What every bubblewrapped sandbox of one runtime is shown from its `.view` directory. */
export interface SharedView {
  /** Bound read-only as the sandbox's whole /etc. */
  etcDir: string;
  /** Public host directories under /etc (`ssl/certs`, ...), bound over their mount points. */
  hostEtcDirs: string[];
  /** The `package.json` shown beside the agent-server bundle (its module type). */
  bundlePackageJson: string;
}

/** Host files changed since are copied again at a launch after this long. */
const REFRESH_MS = 10_000;

/**
 * The files every bubblewrapped sandbox of this runtime is shown read-only, kept in
 * `<rootDir>/.view` (a name no sandbox id can take; never mounted writable): the sandbox's own
 * passwd, group, hosts, hostname and nsswitch.conf (the same for every sandbox: one uid, one
 * hostname), copies of the host's public /etc files, and an empty directory where each public
 * host directory is bound. So /etc is one bind plus one per directory, instead of one per file:
 * each bind costs bwrap ~0.3–0.5 ms here, and the ~27 file binds were a third of its time.
 *
 * The view is made at the first launch; later launches use it and copy the host's files again,
 * in the background, when it is older than REFRESH_MS (each file written beside and renamed, so a
 * sandbox reads the old copy or the new one; sandboxes already running see new copies too).
 */
export class SharedViewKeeper {
  private readonly dir: string;
  private made: Promise<SharedView> | null = null;
  private madeAt = 0;
  private refreshing = false;

  constructor(
    rootDir: string,
    private readonly uid: number,
    private readonly agentServerEntry: string,
    private readonly logger: RuntimeLogger,
    private readonly options: { ownNetwork: boolean } = { ownNetwork: false },
  ) {
    this.dir = path.join(rootDir, ".view");
  }

  async current(): Promise<SharedView> {
    if (this.made === null) {
      this.madeAt = Date.now();
      this.made = this.make(true);
      // A view that could not be made is made again by the next launch.
      this.made.catch(() => {
        this.made = null;
      });
      return this.made;
    }
    const view = await this.made;
    if (Date.now() - this.madeAt >= REFRESH_MS && !this.refreshing) {
      this.refreshing = true;
      this.madeAt = Date.now();
      this.make(false)
        .then((fresh) => {
          this.made = Promise.resolve(fresh);
        })
        .catch((error: unknown) =>
          this.logger.warn({ reason: errorMessage(error) }, "sandbox /etc copies not refreshed"),
        )
        .finally(() => {
          this.refreshing = false;
        });
    }
    return view;
  }

  private async make(first: boolean): Promise<SharedView> {
    const etcDir = path.join(this.dir, "etc");
    await mkdir(etcDir, { recursive: true, mode: 0o755 });
    // The runtime's own files never change: written once, by the first make.
    const own = first
      ? [
          ...Object.entries(sandboxEtcFiles(this.uid, this.options.ownNetwork)).map(
            ([file, text]) => replaceFile(path.join(etcDir, file), text),
          ),
          replaceFile(this.bundlePackageJsonPath(), bundlePackageJson(this.agentServerEntry)),
        ]
      : [];
    // In a network of its own the sandbox's resolver is its own too (sandboxEtcFiles).
    const hostEntries = this.options.ownNetwork
      ? HOST_ETC_ENTRIES.filter((entry) => entry !== "resolv.conf")
      : HOST_ETC_ENTRIES;
    const [kinds] = await Promise.all([
      Promise.all(hostEntries.map((entry) => copyHostEntry(etcDir, entry))),
      Promise.all(own),
    ]);
    return {
      etcDir,
      hostEtcDirs: hostEntries.filter((_, i) => kinds[i] === "directory"),
      bundlePackageJson: this.bundlePackageJsonPath(),
    };
  }

  private bundlePackageJsonPath(): string {
    return path.join(this.dir, "agent-server-package.json");
  }
}

/**
 * One public host entry into the view: a file is copied (through symlinks), a directory gets its
 * mount point, a missing one leaves nothing behind. Says which it was. A symlink to a file in the
 * system directories stays a symlink with the same target, which the sandbox sees too: the C
 * library and ICU learn the time zone's name from /etc/localtime's target, and from a copy ICU
 * finds it by comparing the file with every file under /usr/share/zoneinfo, on a sandboxed node's
 * first `new Date()` (every agent server's first log line, just before its first /health answer).
 */
// Unique per write: two runtimes of one process (a test's successor control plane) may share a
// root directory.
let writes = 0;
const temporaryOf = (file: string) => `${file}.${process.pid}.${writes++}.tmp`;

async function copyHostEntry(etcDir: string, entry: string): Promise<"file" | "directory" | null> {
  const source = `/etc/${entry}`;
  const target = path.join(etcDir, entry);
  const info = await stat(source).catch(() => null);
  if (info?.isDirectory()) {
    await mkdir(target, { recursive: true, mode: 0o755 });
    return "directory";
  }
  if (!info?.isFile()) {
    // Gone from the host (or neither file nor directory): its old copy goes too.
    await rm(target, { force: true }).catch(() => undefined);
    return null;
  }
  await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
  const temporary = temporaryOf(target);
  try {
    const link = await systemLinkOf(source);
    await (link === null ? copyFile(source, temporary) : symlink(link, temporary));
    await rename(temporary, target);
    return "file";
  } catch {
    // Unreadable to the control plane (a non-root one): the sandbox could not read it either.
    await rm(temporary, { force: true }).catch(() => undefined);
    await rm(target, { force: true }).catch(() => undefined);
    return null;
  }
}

/** The link text of a symlink that resolves within the system directories, else null. */
async function systemLinkOf(source: string): Promise<string | null> {
  if (!(await lstat(source)).isSymbolicLink()) return null;
  return isWithinSystemDirs(await realpath(source)) ? readlink(source) : null;
}

async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = temporaryOf(file);
  await writeFile(temporary, text, { mode: 0o644 });
  await rename(temporary, file);
}
