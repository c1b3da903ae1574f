import { readdir, readFile } from "node:fs/promises";

const NUL = Buffer.from("\0");

/**
 * What Linux says about a pid. Read from /proc rather than remembered, so that it is also true
 * for processes this control plane did not start (adopted after a restart).
 * - `alive`: running or sleeping
 * - `stopped`: SIGSTOP'ed (stat state `T`, or `t` under a tracer)
 * - `gone`: no such process, or a zombie waiting to be reaped
 */
export type ProcState = "alive" | "stopped" | "gone";

export async function readProcState(pid: number): Promise<ProcState> {
  const stat = await readProcFile(pid, "stat");
  if (stat === null) return "gone";
  const state = parseStatState(stat);
  if (state === "Z" || state === "X" || state === "x") return "gone";
  if (state === "T" || state === "t") return "stopped";
  return "alive";
}

/** The process's argv, or null once it is gone. */
export async function readCmdline(pid: number): Promise<string[] | null> {
  const cmdline = await readProcFile(pid, "cmdline");
  if (cmdline === null || cmdline === "") return null;
  return cmdline.replace(/\0$/, "").split("\0");
}

/** A live process as /proc shows it. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** The stat state letter (`S`, `R`, `T`, ...); never a zombie's. */
  state: string;
}

/**
 * Every live process whose initial environment holds `name=value`, and every descendant of one.
 * The environment is inherited by everything the agent server starts — also commands it runs in
 * sessions of their own, and orphans that init adopted — which a walk of the process tree alone
 * would miss. The walk adds what dropped the variable from its environment but still descends
 * from a marked process: under bubblewrap, everything in the sandbox's pid namespace descends
 * from bwrap's init (orphans there are re-parented to it, never beyond it). Zombies are left out:
 * they are dead, yet still count for kill(-pgid, 0) until reaped, which for orphans happens on
 * init's schedule. This process itself is never in the result.
 */
export async function findProcessTrees(name: string, value: string): Promise<ProcInfo[]> {
  const entry = Buffer.from(`\0${name}=${value}\0`);
  const pids = (await readdir("/proc").catch(() => [])).filter((name) => /^\d+$/.test(name));
  const all = await Promise.all(
    pids.map(async (name) => {
      const pid = Number(name);
      const stat = await readProcFile(pid, "stat");
      const fields = stat === null ? null : parseStatFields(stat);
      if (fields === null || fields.state === "Z" || fields.state === "X") return null;
      const environ = await readFile(`/proc/${pid}/environ`).catch(() => null);
      // Entries are NUL-terminated; a leading NUL lets the first one match like the others.
      const marked = environ !== null && Buffer.concat([NUL, environ]).includes(entry);
      return { pid, ppid: fields.ppid, pgid: fields.pgrp, state: fields.state, marked };
    }),
  );
  const live = all.filter((info) => info !== null).filter((info) => info.pid !== process.pid);
  const found = new Map(live.filter((info) => info.marked).map((info) => [info.pid, info]));
  // Parents before children is not guaranteed by pid order (pids wrap), so repeat until stable.
  for (let grew = true; grew; ) {
    grew = false;
    for (const info of live) {
      if (!found.has(info.pid) && found.has(info.ppid)) {
        found.set(info.pid, info);
        grew = true;
      }
    }
  }
  return [...found.values()].map(({ pid, ppid, pgid, state }) => ({ pid, ppid, pgid, state }));
}

/**
 * The state letter of /proc/<pid>/stat. The command name in parentheses may itself contain
 * spaces and parentheses, so the state is found after the last ")".
 */
export function parseStatState(stat: string): string | null {
  return parseStatFields(stat)?.state ?? null;
}

// After "(comm)": state, ppid, pgrp, ...
function parseStatFields(stat: string): { state: string; ppid: number; pgrp: number } | null {
  const end = stat.lastIndexOf(")");
  if (end === -1) return null;
  const [state, ppid, pgrp] = stat.slice(end + 2).split(" ");
  if (!state || ppid === undefined || pgrp === undefined) return null;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

async function readProcFile(pid: number, name: string): Promise<string | null> {
  try {
    return await readFile(`/proc/${pid}/${name}`, "utf8");
  } catch {
    return null;
  }
}
