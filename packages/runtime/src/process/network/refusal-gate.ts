import { readFileSync, readlinkSync, statSync } from "node:fs";

/**
 * Lets the control plane's pull skip reading a namespace's refused sets (an `nft` fork per
 * sandbox, every few seconds while it is active) when nothing can have been refused since the
 * last read. Each refusal of the enforcer moves one of the namespace's own SNMP counters, which
 * any process in it shows under /proc/<pid>/net without a fork: a refused TCP connect fails on
 * the reset (Tcp AttemptFails); a refused UDP send is dropped (Ip OutDiscards, Ip6OutDiscards,
 * counted even when the ICMP error is rate-limited) and answered by an ICMP error
 * (OutDestUnreachs, Icmp6OutDestUnreachs). Other failures move them too: that costs one read
 * more, never a report less. Where the counters cannot be read, or the pid is no longer in the
 * namespace (pids are reused), it reads.
 */
export class RefusalGate {
  /** Per sandbox, its namespace and counters as they were before its last read. */
  private readonly marks = new Map<string, string>();

  /** Runs `read` (which says whether it read) unless the counters are as at the last read. */
  async pass(
    sandboxId: string,
    netnsPath: string,
    pid: number | null,
    read: () => Promise<boolean>,
  ): Promise<void> {
    // Before the read: a refusal between the two is read now and moves the counters for the next.
    const marks = pid === null ? null : readRefusalMarks(netnsPath, pid);
    if (marks !== null && this.marks.get(sandboxId) === marks) return;
    const done = await read();
    if (done && marks !== null) this.marks.set(sandboxId, marks);
    else this.marks.delete(sandboxId);
  }

  forget(sandboxId: string): void {
    this.marks.delete(sandboxId);
  }
}

const SNMP_FIELDS: [string, string][] = [
  ["Tcp:", "AttemptFails"],
  ["Ip:", "OutDiscards"],
  ["Icmp:", "OutDestUnreachs"],
];
const SNMP6_FIELDS = [/^Ip6OutDiscards\s+(\d+)$/m, /^Icmp6OutDestUnreachs\s+(\d+)$/m];

/**
 * The namespace's inode and the counters a refusal moves, as one string, read through `pid`;
 * null unless `pid` is in the namespace at `netnsPath` (checked after the counters are read, so
 * they are the namespace's even if the pid was reused meanwhile). Synchronous: procfs answers
 * from memory, and a thread-pool round trip per file would cost more than the reads.
 */
export function readRefusalMarks(netnsPath: string, pid: number): string | null {
  try {
    const snmp = readFileSync(`/proc/${pid}/net/snmp`, "utf8");
    const snmp6 = readFileSync(`/proc/${pid}/net/snmp6`, "utf8");
    const inode = statSync(netnsPath).ino;
    if (readlinkSync(`/proc/${pid}/ns/net`) !== `net:[${inode}]`) return null;
    const lines = snmp.split("\n");
    const values = [
      ...SNMP_FIELDS.map(([table, field]) => snmpField(lines, table, field)),
      ...SNMP6_FIELDS.map((field) => snmp6.match(field)?.[1]),
    ];
    return values.includes(undefined) ? null : `${inode} ${values.join(" ")}`;
  } catch {
    return null;
  }
}

/** A field of /proc/net/snmp: each table is a line of names, then a line of values. */
function snmpField(lines: string[], table: string, field: string): string | undefined {
  const [names, values] = lines
    .filter((line) => line.startsWith(`${table} `))
    .map((line) => line.split(" "));
  const at = names?.indexOf(field) ?? -1;
  return at < 0 ? undefined : values?.[at];
}
