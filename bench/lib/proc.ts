import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (`getconf CLK_TCK`). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process (its pid), or one of its threads: `{ pid, tid }` (a process's main thread: tid = pid). */
export type CpuSubject = number | { pid: number; tid: number };

/** Whether a subject names a process to sample (a pid ≤ 0 is a side's placeholder). */
export const isSampled = (subject: CpuSubject) =>
  (typeof subject === "number" ? subject : subject.pid) > 0;

/** utime + stime of a process, or of one of its threads, in clock ticks; 0 once it is gone. */
export function cpuTicks(subject: CpuSubject): number {
  const file =
    typeof subject === "number"
      ? `/proc/${subject}/stat`
      : `/proc/${subject.pid}/task/${subject.tid}/stat`;
  try {
    const stat = readFileSync(file, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 of the whole line are 12 and 13 here (field 3 is the first after ')').
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Microseconds of CPU a number of clock ticks stands for. */
export const ticksToMicros = (ticks: number) => (ticks * 1_000_000) / CLK_TCK;

/**
 * A process's memory beyond its RSS, from /proc/<pid>/smaps_rollup, in MiB. RSS counts the pages
 * it shares with every other process of the same binary (the `node` executable's text and
 * rodata) in full; PSS divides those among their users; private (USS) is what ending the process
 * would give back.
 */
export function memoryMib(pid: number): { pss: number; private: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(rollup)?.[1] ?? Number.NaN);
  return {
    pss: kibToMib(kib("Pss")),
    private: kibToMib(kib("Private_Clean") + kib("Private_Dirty")),
  };
}

/** kB as /proc counts them, in MiB to one decimal. */
const kibToMib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

/** VmRSS of a process in MiB. */
export function residentMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return kibToMib(Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN));
}

/** Socket inodes listening on a TCP port (IPv4 and IPv6), from /proc/net/tcp{,6}. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let lines: string[];
    try {
      lines = readFileSync(table, "utf8").split("\n").slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const cols = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT"; st 0A is LISTEN; the inode is column 10.
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === "0A" && cols[9]) inodes.add(cols[9]);
    }
  }
  return inodes;
}

/**
 * The pid of the process listening on a TCP port: the socket's inode from /proc/net/tcp, then the
 * process holding a descriptor to it. Works for a bubblewrapped agent server too (it shares the
 * host's network namespace, and its host-side pid holds the socket); null when nobody listens.
 */
export function listeningPid(port: number): number | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** The pid listening on the port of an http://host:port URL; throws when there is none. */
export function pidOfUrl(url: string): number {
  const pid = listeningPid(Number(new URL(url).port));
  if (pid === null) throw new Error(`no process listens at ${url}`);
  return pid;
}

/** The command line of a process, for the report (which process was measured). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "";
  }
}

/** The children of a process (of all its threads), from /proc/<pid>/task/<tid>/children. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8")
        .split(" ")
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  });
}

/** A process and every process below it, parents first. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i] ?? 0));
  return tree;
}

/** Every process whose command line has `marker` as one of its arguments, by that argument's successor. */
export function processesByArgument(marker: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
    } catch {
      continue;
    }
    const at = argv.indexOf(marker);
    const value = at === -1 ? undefined : argv[at + 1];
    if (value !== undefined) found.set(value, Number(entry));
  }
  return found;
}
