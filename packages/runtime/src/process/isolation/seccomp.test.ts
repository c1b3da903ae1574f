import { execFileSync } from "node:child_process";
import { copyFile, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessRuntime } from "../process-runtime";
import {
  agentServerHostPid,
  RuntimeFixture,
  runBash,
  type StartedSandbox,
  startReadySandbox,
} from "../test/support";
import { detectBwrap } from "./detect-bwrap";
import { prepareSeccomp } from "./prepare-seccomp";
import { ENOSYS, EPERM } from "./seccomp-policy";

/**
 * Each call the filter refuses, made by a real program (test/syscall-probe.py, Python's ctypes)
 * in three places: a plain process, a bubblewrapped sandbox without the filter (the same
 * namespaces; the runtime there was given a Python without libseccomp), and one with it. The
 * probe's arguments make the kernel answer something other than EPERM where nothing refuses the
 * call, so an EPERM under the filter is the filter's. bwrap and python3-seccomp are installed in
 * CI: there these tests fail without them; elsewhere they are skipped with a warning.
 */
const bwrap = detectBwrap();
const support = bwrap.usable
  ? prepareSeccomp({ bwrap, nodePath: process.execPath, pythonPath: "/usr/bin/python3" })
  : bwrap;
const mustRun = support.usable || process.env.CI === "true";
if (!support.usable && !mustRun) console.warn(`[seccomp tests] skipped: ${support.reason}`);

const PROBE = fileURLToPath(new URL("../test/syscall-probe.py", import.meta.url));
const INT80 = fileURLToPath(new URL("../test/int80-getpid.c", import.meta.url));

/** Refused with EPERM under the filter; the kernel answers otherwise in a sandbox without it. */
const REFUSED = [
  "io_uring_setup",
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "userfaultfd",
  "perf_event_open",
  "mount",
  "umount2",
  "unshare",
  "setns",
  "clone_newuser",
  "personality_no_randomize",
  "packet_socket_bad_type",
  "vsock_socket",
  "netlink_sock_diag",
];
/** What programs need: allowed under the filter. */
const ALLOWED = [
  "personality_linux",
  "tcp_socket",
  "udp6_socket",
  "unix_socket",
  "netlink_route",
  "getaddrinfo",
];

type Sandbox = StartedSandbox;

type Probe = Record<string, number>;

const fixture = new RuntimeFixture();
let filtered: ProcessRuntime;
let unfiltered: ProcessRuntime;
let sandboxes: { filtered: Sandbox; unfiltered: Sandbox; open: Sandbox };

async function startSandbox(runtime: ProcessRuntime, rootDir: string): Promise<Sandbox> {
  const sandbox = await startReadySandbox(runtime, rootDir);
  await copyFile(PROBE, path.join(sandbox.dir, "workspace", "probe.py"));
  return sandbox;
}

async function probe(sandbox: Sandbox): Promise<Probe> {
  const result = await runBash(sandbox.url, sandbox.key, "/usr/bin/python3 probe.py");
  expect(result.stderr).toBe("");
  return JSON.parse(result.stdout) as Probe;
}

async function seccompMode(sandbox: Sandbox): Promise<string | undefined> {
  const status = await readFile(`/proc/${await agentServerHostPid(sandbox.dir)}/status`, "utf8");
  return /^Seccomp:\s*(\d)$/m.exec(status)?.[1];
}

describe.runIf(mustRun)(
  "the seccomp filter of bubblewrapped sandboxes",
  { timeout: 60_000 },
  () => {
    beforeAll(async () => {
      const rootDir = await fixture.createRootDir();
      filtered = fixture.createRuntime(rootDir, { sandboxing: "bwrap" });
      unfiltered = fixture.createRuntime(rootDir, {
        sandboxing: "bwrap",
        seccompPython: path.join(rootDir, "no-python3"),
      });
      const open = fixture.createRuntime(rootDir, { sandboxing: "none" });
      const [a, b, c] = await Promise.all([
        startSandbox(filtered, rootDir),
        startSandbox(unfiltered, rootDir),
        startSandbox(open, rootDir),
      ]);
      sandboxes = { filtered: a, unfiltered: b, open: c };
    }, 60_000);

    // Delete waits out its grace period for the bash sessions the probes ran in.
    afterAll(async () => {
      await fixture.cleanUp();
    }, 60_000);

    it("is compiled here (CI installs python3-seccomp) and claimed only where it is loaded", async () => {
      expect(filtered.isolationDetail).toMatch(/^seccomp filter/);
      expect(await seccompMode(sandboxes.filtered)).toBe("2");
      // Without libseccomp the runtime says so (and logs it), and its sandboxes still run.
      expect(unfiltered.isolationDetail).toMatch(/^NO seccomp filter .*python3-seccomp/);
      expect(await seccompMode(sandboxes.unfiltered)).toBe("0");
      expect(fixture.logs.map((entry) => entry.message)).toContain(
        "process sandboxes run WITHOUT a seccomp filter",
      );
    });

    it("refuses each denied call with EPERM, which the kernel answers otherwise without it", async () => {
      const [outside, without, withFilter] = await Promise.all([
        probe(sandboxes.open),
        probe(sandboxes.unfiltered),
        probe(sandboxes.filtered),
      ]);
      for (const name of REFUSED) {
        expect({ name, errno: without[name] }).not.toEqual({ name, errno: EPERM });
        expect({ name, errno: withFilter[name] }).toEqual({ name, errno: EPERM });
      }
      // Outside every sandbox these work outright (a user namespace, a persona, a socket).
      for (const name of ["unshare", "clone_newuser", "vsock_socket", "netlink_sock_diag"]) {
        expect({ name, errno: outside[name] }).toEqual({ name, errno: 0 });
      }
      // clone3's flags are out of the filter's sight: ENOSYS sends libc back to clone.
      expect(without.clone3).not.toBe(ENOSYS);
      expect(withFilter.clone3).toBe(ENOSYS);
      for (const name of ALLOWED) {
        expect({ name, errno: withFilter[name] }).toEqual({ name, errno: 0 });
      }
    });

    it.runIf(process.getuid?.() === 0)(
      "refuses raw and packet sockets, which root opens outside a sandbox",
      async () => {
        const [outside, withFilter] = await Promise.all([
          probe(sandboxes.open),
          probe(sandboxes.filtered),
        ]);
        expect({ raw: outside.raw_socket, packet: outside.packet_socket }).toEqual({
          raw: 0,
          packet: 0,
        });
        expect({ raw: withFilter.raw_socket, packet: withFilter.packet_socket }).toEqual({
          raw: EPERM,
          packet: EPERM,
        });
      },
    );

    it("leaves node its network calls: interfaces through netlink, name lookups", async () => {
      const script =
        "const os=require('os'),dns=require('dns');" +
        "dns.lookup('localhost',(e,a)=>console.log(Object.keys(os.networkInterfaces()).includes('lo'),e?e.code:a))";
      const result = await runBash(
        sandboxes.filtered.url,
        sandboxes.filtered.key,
        `node -e "${script}"`,
      );
      expect(result.stdout.trim()).toMatch(/^true (127\.0\.0\.1|::1)$/);
    });

    it.runIf(process.arch === "x64")(
      "kills a process that goes around it through i386's syscalls",
      async () => {
        // gcc is part of the development and CI machines; it builds the program into both workspaces.
        for (const sandbox of [sandboxes.unfiltered, sandboxes.filtered]) {
          execFileSync("gcc", ["-O0", "-o", path.join(sandbox.dir, "workspace", "int80"), INT80]);
        }
        const run = (sandbox: Sandbox) => runBash(sandbox.url, sandbox.key, "./int80");
        const [without, withFilter] = [
          await run(sandboxes.unfiltered),
          await run(sandboxes.filtered),
        ];
        expect(without).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^\d+\n$/) });
        // 128 + SIGSYS
        expect(withFilter.exitCode).toBe(159);
      },
    );

    it("says why there is no filter when libseccomp cannot be run", () => {
      if (!bwrap.usable) throw new Error(bwrap.reason);
      const support = prepareSeccomp({
        bwrap,
        nodePath: process.execPath,
        pythonPath: "/bin/false",
      });
      expect(support).toEqual({
        usable: false,
        reason: expect.stringMatching(/could not be compiled .*python3-seccomp/),
      });
    });
  },
);
