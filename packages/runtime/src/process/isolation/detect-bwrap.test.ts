import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProcessRuntime } from "../process-runtime";
import { detectBwrap } from "./detect-bwrap";

let dir: string;
/** Answers --version and --help like bwrap, but cannot create namespaces (user namespaces off). */
let crippledBwrap: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "detect-bwrap-"));
  crippledBwrap = path.join(dir, "bwrap");
  await writeFile(
    crippledBwrap,
    [
      "#!/bin/sh",
      'case "$1" in',
      '  --version) echo "bubblewrap 0.8.0" ;;',
      '  --help) echo "usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]" ;;',
      '  *) echo "bwrap: No permissions to create a new namespace" >&2; exit 1 ;;',
      "esac",
    ].join("\n"),
  );
  await chmod(crippledBwrap, 0o755);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("detectBwrap", () => {
  it("finds a working bubblewrap here (CI installs it)", () => {
    const support = detectBwrap();
    if (!support.usable && process.env.CI !== "true") {
      // A developer's machine without bubblewrap: the reason is what the server prints.
      expect(support.reason).toMatch(/bwrap/);
      return;
    }
    expect(support).toMatchObject({ usable: true, path: expect.stringMatching(/^\//) });
    if (support.usable) expect(support.version).toMatch(/^\d+\.\d+/);
  });

  it("says why when the binary is missing", () => {
    expect(detectBwrap({ bwrapPath: path.join(dir, "missing") })).toEqual({
      usable: false,
      reason: expect.stringContaining("missing"),
    });
  });

  it("says why when a trial sandbox cannot be created", () => {
    expect(detectBwrap({ bwrapPath: crippledBwrap })).toEqual({
      usable: false,
      reason: expect.stringMatching(
        /cannot create a sandbox here .*No permissions to create a new namespace/,
      ),
    });
  });
});

describe("ProcessRuntime sandboxing option", () => {
  // The constructor only detects; nothing is created under rootDir.
  const base = { rootDir: "/nonexistent/sandboxes", agentServerEntry: "agent-server.js" };

  it("`bwrap` refuses to construct a runtime without a working bubblewrap", () => {
    expect(
      () => new ProcessRuntime({ ...base, sandboxing: "bwrap", bwrapPath: crippledBwrap }),
    ).toThrow(/asked to run under bubblewrap.*No permissions to create a new namespace/);
  });

  it("`auto` falls back to isolation none, and `none` never uses bubblewrap", () => {
    const fallback = new ProcessRuntime({ ...base, sandboxing: "auto", bwrapPath: crippledBwrap });
    expect(fallback.isolation).toBe("none");
    expect(new ProcessRuntime({ ...base, sandboxing: "none" }).isolation).toBe("none");
  });
});
