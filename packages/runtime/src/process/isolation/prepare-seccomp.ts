import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { release } from "node:os";
import type { UsableBwrap } from "./detect-bwrap";
import { seccompPolicy } from "./seccomp-policy";
import { systemViewArgs } from "./system-view";

/** A compiled filter every sandbox is launched with, or why there is none. */
export type SeccompSupport =
  | {
      usable: true;
      /** The cBPF program, as bwrap's `--seccomp FD` reads it. */
      program: Buffer;
      /** Policy names this libseccomp does not know: they fall under the ENOSYS rule instead. */
      unknownNames: string[];
    }
  | { usable: false; reason: string };

export interface PrepareSeccompOptions {
  bwrap: UsableBwrap;
  /** The node binary sandboxes run; the trial runs it under the filter. */
  nodePath: string;
  /** A Python 3 with Debian's python3-seccomp (libseccomp's binding). */
  pythonPath: string;
}

/**
 * libseccomp, through its Python binding, turns the policy (JSON on stdin) into a cBPF program
 * (stdout). Allow by default; a non-native architecture (i386's int 0x80 on x86_64, x32) kills
 * the process, so no second syscall table goes around the rules.
 */
const COMPILER = `
import json, sys, seccomp as s
policy = json.load(sys.stdin)
f = s.SyscallFilter(s.ALLOW)
f.set_attr(s.Attr.ACT_BADARCH, s.KILL_PROCESS)
f.set_attr(s.Attr.CTL_OPTIMIZE, 2)
def named(n):
    try:
        s.resolve_syscall(s.Arch.NATIVE, n)
        return True
    except ValueError:
        return False
for n in range(policy["unknownBelow"]):
    if not named(n):
        f.add_rule(s.ERRNO(policy["unknownErrno"]), n)
unknown = set()
for rule in policy["rules"]:
    if s.resolve_syscall(s.Arch.NATIVE, rule["syscall"]) < 0:
        unknown.add(rule["syscall"])
        continue
    args = [s.Arg(a["index"], s.MASKED_EQ, a["mask"], a["value"]) for a in rule.get("args", [])]
    f.add_rule(s.ERRNO(rule["errno"]), rule["syscall"], *args)
json.dump(sorted(unknown), sys.stderr)
sys.stdout.flush()
f.export_bpf(sys.stdout)
`;

const cache = new Map<string, SeccompSupport>();

/**
 * The filter for this machine: compiled once per process and content (the policy, the compiler,
 * the binaries), then proven in a trial sandbox that runs node under it — a kernel without
 * seccomp filters, or a program bwrap rejects, shows only there. Synchronous, like detectBwrap:
 * a runtime knows from its constructor on what it can claim.
 */
export function prepareSeccomp(options: PrepareSeccompOptions): SeccompSupport {
  const policy = seccompPolicy({ arch: process.arch, kernelRelease: release() });
  if ("unsupported" in policy) return { usable: false, reason: policy.unsupported };
  const input = JSON.stringify(policy);
  const key = createHash("sha256")
    .update([COMPILER, input, options.pythonPath, options.bwrap.path, options.nodePath].join("\0"))
    .digest("hex");
  const known = cache.get(key);
  if (known) return known;
  const support = compileAndTry(input, options);
  cache.set(key, support);
  return support;
}

function compileAndTry(input: string, options: PrepareSeccompOptions): SeccompSupport {
  const compiled = spawnSync(options.pythonPath, ["-c", COMPILER], { input, timeout: 20_000 });
  if (compiled.error || compiled.status !== 0 || compiled.stdout.length === 0) {
    const why = compiled.error?.message ?? lastLine(compiled.stderr.toString());
    return {
      usable: false,
      reason: `the seccomp filter could not be compiled with ${options.pythonPath} and libseccomp (install python3-seccomp): ${why}`,
    };
  }
  const program = compiled.stdout;
  const trial = spawnSync(
    options.bwrap.path,
    [
      "--unshare-user",
      "--unshare-pid",
      ...systemViewArgs(options.nodePath),
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--clearenv",
      "--seccomp",
      "0",
      "--",
      options.nodePath,
      "-e",
      // Node's own start-up and its netlink use (os.networkInterfaces) must pass the filter.
      "require('node:os').networkInterfaces()",
    ],
    { input: program, timeout: 10_000 },
  );
  if (trial.error || trial.status !== 0) {
    const why = trial.error?.message ?? lastLine(trial.stderr.toString());
    return { usable: false, reason: `bwrap could not run node under the seccomp filter: ${why}` };
  }
  return { usable: true, program, unknownNames: parseNames(compiled.stderr.toString()) };
}

function parseNames(text: string): string[] {
  try {
    const names: unknown = JSON.parse(text);
    return Array.isArray(names) ? names.map(String) : [];
  } catch {
    return [];
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1] || "no output";
}

/** For the runtime's `isolationDetail`: claims the filter only when every sandbox gets it. */
export function describeSeccomp(support: SeccompSupport): string {
  return support.usable
    ? "seccomp filter with Docker's default denials (bpf, io_uring, keyctl, mount, raw and packet sockets, ...)"
    : `NO seccomp filter (${support.reason})`;
}
