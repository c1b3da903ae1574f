import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { parseStatState, readCmdline, readProcState } from "./read-proc";

describe("parseStatState", () => {
  it("finds the state after a command name with spaces and parentheses", () => {
    expect(parseStatState("123 (a (b) c) T 1 123 123 0 -1")).toBe("T");
    expect(parseStatState("7 (node) S 1 7 7")).toBe("S");
  });

  it("is null for text that is not a stat line", () => {
    expect(parseStatState("garbage")).toBeNull();
  });
});

describe("readProcState and readCmdline", () => {
  it("follow a real process through stop, continue and exit", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const pid = child.pid as number;
    try {
      expect(await readCmdline(pid)).toEqual(["sleep", "30"]);
      expect(await readProcState(pid)).toBe("alive");
      process.kill(pid, "SIGSTOP");
      await expect.poll(() => readProcState(pid)).toBe("stopped");
      process.kill(pid, "SIGCONT");
      await expect.poll(() => readProcState(pid)).toBe("alive");
    } finally {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
    expect(await readProcState(pid)).toBe("gone");
    expect(await readCmdline(pid)).toBeNull();
  });
});
