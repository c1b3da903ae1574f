import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findListeningPort, openLogForRun, readLogFrom, readLogTail } from "./agent-server-log";

let dir: string;
let logFile: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "agent-server-log-"));
  logFile = path.join(dir, "agent-server.log");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("findListeningPort", () => {
  it("takes the port from the listening line among other output", () => {
    const text = [
      '{"level":30,"msg":"listening soon"}',
      '{"event":"listening","host":"127.0.0.1","port":41234}',
      "",
    ].join("\n");
    expect(findListeningPort(text)).toBe(41234);
  });

  it("ignores lines that only look similar", () => {
    expect(findListeningPort('{"event":"listening","port":0}\n')).toBeNull();
    expect(findListeningPort('{"event":"listening"\n')).toBeNull();
    expect(findListeningPort('note: "listening" on 8000\n')).toBeNull();
  });
});

describe("log reading", () => {
  it("starts a run at the end of earlier output", async () => {
    await writeFile(logFile, "earlier run\n");
    const { handle, offset } = await openLogForRun(logFile);
    await handle.appendFile("this run\n");
    await handle.close();
    expect(await readLogFrom(logFile, offset)).toEqual({ text: "this run\n", end: 21 });
    expect(await readLogTail(logFile, offset)).toBe("this run");
  });

  it("keeps only the last bytes, starting at a whole line", async () => {
    await writeFile(logFile, "first line\nsecond line\nthird line\n");
    expect(await readLogTail(logFile, 0, 20)).toBe("third line");
  });

  it("is empty for a missing log", async () => {
    expect(await readLogTail(path.join(dir, "missing.log"), 0)).toBe("");
    expect(await readLogFrom(path.join(dir, "missing.log"), 0)).toEqual({ text: "", end: 0 });
  });

  it("reads only what was appended since the last read", async () => {
    await writeFile(logFile, "a\n");
    const first = await readLogFrom(logFile, 0);
    await appendFile(logFile, "b\n");
    expect(await readLogFrom(logFile, first.end)).toEqual({ text: "b\n", end: 4 });
  });
});
