import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../logger";
import { EventLogFiles, readEventLog } from "./event-log";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const event = (id: string) => ({ id, kind: "MessageEvent", text: `é ${id}` });

describe("EventLogFiles", () => {
  it("keeps at most its limit open and appends in order across a close and a reopen", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "event-log-"));
    dirs.push(dir);
    const files = ["a", "b", "c"].map((name) => path.join(dir, `${name}.jsonl`));
    const logs = new EventLogFiles(2);
    for (const round of [1, 2]) {
      for (const file of files) {
        logs.append(file, JSON.stringify(event(`${path.basename(file)}${round}`)));
        expect(logs.openCount).toBeLessThanOrEqual(2);
      }
    }
    logs.closeAll();
    expect(logs.openCount).toBe(0);
    for (const file of files) {
      const name = path.basename(file);
      expect(readEventLog(file, silentLogger)).toEqual([event(`${name}1`), event(`${name}2`)]);
    }
  });
});
