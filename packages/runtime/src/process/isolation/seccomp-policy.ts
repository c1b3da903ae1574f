/**
 * What the seccomp filter of a bubblewrapped sandbox refuses: Docker's default profile as it acts
 * on an unprivileged container, written as a deny-list (everything else is allowed). The filter
 * itself is compiled by libseccomp (compile-seccomp.ts); this file is only data and the few
 * argument rules. Why a deny-list, and where it differs from Docker: docs/adr/0023.
 */

/** One refusal: the syscall fails with `errno`, when every `args` comparison holds (or always). */
export interface SeccompRule {
  syscall: string;
  errno: number;
  args?: SeccompArg[];
}

/** `(argument & mask) === value`: libseccomp's SCMP_CMP_MASKED_EQ. */
export interface SeccompArg {
  index: number;
  mask: number;
  value: number;
}

export interface SeccompPolicy {
  rules: SeccompRule[];
  /**
   * Syscall numbers below this that libseccomp cannot name (newer than it, or unassigned) fail
   * with ENOSYS, as on an older kernel: programs fall back, and nothing unreviewed is reachable.
   */
  unknownBelow: number;
  unknownErrno: number;
}

export const EPERM = 1;
export const ENOSYS = 38;

/** Refused always. Names libseccomp does not know are left to the ENOSYS rule for unknowns. */
const DENIED: Record<string, string[]> = {
  // Kernel modules, kexec, the machine's power and swap, process accounting, the clock.
  machine: [
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "stime",
    "clock_settime",
    "iopl",
    "ioperm",
    "syslog",
    "vhangup",
    "sethostname",
    "setdomainname",
  ],
  // Mounts, old and new API: the sandbox's view is bwrap's, fixed.
  mounts: [
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "open_tree",
    "open_tree_attr",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "quotactl",
    "quotactl_fd",
  ],
  // New namespaces and joining others' (clone's namespace flags: cloneRules).
  namespaces: ["unshare", "setns"],
  // The kernel keyring is not namespaced: keys of other users of the host's uid.
  keyring: ["add_key", "request_key", "keyctl"],
  // Large attack surfaces, each the way in of several local privilege escalations.
  surfaces: [
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fanotify_init",
    "lookup_dcookie",
    "open_by_handle_at",
  ],
  // Reading or steering other processes beyond ptrace's own checks.
  processes: ["kcmp", "pidfd_getfd", "process_madvise"],
  // Memory placement across NUMA nodes (CAP_SYS_NICE in Docker).
  numa: [
    "mbind",
    "set_mempolicy",
    "set_mempolicy_home_node",
    "get_mempolicy",
    "migrate_pages",
    "move_pages",
  ],
  obsolete: [
    "_sysctl",
    "uselib",
    "ustat",
    "sysfs",
    "create_module",
    "get_kernel_syms",
    "query_module",
    "nfsservctl",
    "afs_syscall",
    "tuxcall",
    "security",
    "vserver",
    "getpmsg",
    "putpmsg",
  ],
};

// Before 4.8 a tracer could change a syscall after seccomp had checked it.
const PTRACE = ["ptrace", "process_vm_readv", "process_vm_writev"];

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
/** The kernel refuses families from here on (NPROTO) by itself. */
const AF_MAX = 46;
const SOCK_TYPE_MASK = 0xf;
const SOCK_RAW = 3;
const NETLINK_ROUTE = 0;
/** The kernel refuses netlink protocols from here on (MAX_LINKS) by itself. */
const NETLINK_PROTOCOLS = 32;
/** Compare the low 32 bits: the kernel reads these int arguments so, seccomp sees 64. */
const INT = 0xffffffff;

const CLONE_NEW_FLAGS = [
  0x00020000, // CLONE_NEWNS
  0x02000000, // CLONE_NEWCGROUP
  0x04000000, // CLONE_NEWUTS
  0x08000000, // CLONE_NEWIPC
  0x10000000, // CLONE_NEWUSER
  0x20000000, // CLONE_NEWPID
  0x40000000, // CLONE_NEWNET
];

/** personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 and those two together. */
const PERSONALITY_ALLOWED_BITS = 0x0008 | 0x0020000;

export interface PolicyTarget {
  /** `process.arch`. */
  arch: string;
  /** `os.release()`. */
  kernelRelease: string;
}

/** The policy for this machine, or why there is none (an architecture it was not written for). */
export function seccompPolicy(target: PolicyTarget): SeccompPolicy | { unsupported: string } {
  if (target.arch !== "x64" && target.arch !== "arm64") {
    return { unsupported: `no seccomp policy for the ${target.arch} architecture` };
  }
  const denied = [...Object.values(DENIED).flat(), ...(kernelAtLeast(target, 4, 8) ? [] : PTRACE)];
  return {
    rules: [
      ...denied.map((syscall) => ({ syscall, errno: EPERM })),
      ...cloneRules(),
      ...personalityRules(),
      ...socketRules(),
    ],
    unknownBelow: 1024,
    unknownErrno: ENOSYS,
  };
}

/**
 * clone with a namespace flag is refused; clone3, whose flags sit behind a pointer seccomp cannot
 * read, answers ENOSYS so that libc falls back to clone (as Docker does).
 */
function cloneRules(): SeccompRule[] {
  return [
    ...CLONE_NEW_FLAGS.map((flag) => ({
      syscall: "clone",
      errno: EPERM,
      args: [{ index: 0, mask: flag, value: flag }],
    })),
    { syscall: "clone3", errno: ENOSYS },
  ];
}

/**
 * Any flag but Docker's allowed ones is refused, bit by bit (a filter that allows by default can
 * only say what it refuses). Unlike Docker, the query value 0xffffffff is refused too.
 */
function personalityRules(): SeccompRule[] {
  const rules: SeccompRule[] = [];
  for (let bit = 0; bit < 32; bit++) {
    const flag = 2 ** bit;
    if ((PERSONALITY_ALLOWED_BITS & flag) !== 0) continue;
    rules.push({
      syscall: "personality",
      errno: EPERM,
      args: [{ index: 0, mask: flag, value: flag }],
    });
  }
  return rules;
}

/**
 * Sockets of the families a program on the network needs: Unix, IPv4, IPv6 (not raw), and
 * netlink's NETLINK_ROUTE only, which getaddrinfo (AI_ADDRCONFIG) and Node's
 * os.networkInterfaces read the host's addresses through. Every other family (packet, vsock, alg,
 * the rarely used protocol modules) and netlink protocol (audit, uevents, netfilter, ...) is
 * refused. Listed value by value: the kernel refuses the values past them itself.
 */
function socketRules(): SeccompRule[] {
  const allowed = new Set([AF_UNIX, AF_INET, AF_INET6, AF_NETLINK]);
  const rules: SeccompRule[] = [];
  for (let family = 0; family < AF_MAX; family++) {
    if (!allowed.has(family)) rules.push(socket([{ index: 0, mask: INT, value: family }]));
  }
  for (const family of [AF_INET, AF_INET6]) {
    rules.push(
      socket([
        { index: 0, mask: INT, value: family },
        { index: 1, mask: SOCK_TYPE_MASK, value: SOCK_RAW },
      ]),
    );
  }
  for (let protocol = 0; protocol < NETLINK_PROTOCOLS; protocol++) {
    if (protocol === NETLINK_ROUTE) continue;
    rules.push(
      socket([
        { index: 0, mask: INT, value: AF_NETLINK },
        { index: 2, mask: INT, value: protocol },
      ]),
    );
  }
  return rules;
}

function socket(args: SeccompArg[]): SeccompRule {
  return { syscall: "socket", errno: EPERM, args };
}

function kernelAtLeast(target: PolicyTarget, major: number, minor: number): boolean {
  const [a = 0, b = 0] = target.kernelRelease
    .split(/[.-]/)
    .map((part) => Number.parseInt(part, 10));
  return a > major || (a === major && b >= minor);
}
