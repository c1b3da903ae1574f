import { type FileHandle, open, rename, stat } from "node:fs/promises";

/**
 * The agent server writes stdout and stderr straight into `agent-server.log` (a file, not a pipe
 * to us), so it keeps running — and logging — after the control plane exits. Everything we need
 * from its output (the listening line, the tail for exit details) is read back from that file.
 */

/** Bytes of output kept for the detail of a failed sandbox. */
export const OUTPUT_TAIL_BYTES = 8 * 1024;

// One earlier log is kept beside the current one; older output is dropped on the next launch.
const ROTATE_AT_BYTES = 5 * 1024 * 1024;

/**
 * Opens the log for appending and says where this run's output begins. The caller hands
 * `handle.fd` to the child and closes its own handle once the child is spawned.
 */
export async function openLogForRun(
  logFile: string,
): Promise<{ handle: FileHandle; offset: number }> {
  const size = await fileSize(logFile);
  const rotate = size > ROTATE_AT_BYTES;
  if (rotate) await rename(logFile, `${logFile}.1`);
  const handle = await open(logFile, "a", 0o600);
  return { handle, offset: rotate ? 0 : size };
}

/**
 * At most `maxBytes` of the log after `fromOffset`, cut at a line start when possible; empty when
 * the log cannot be read (it only ever adds detail to a message).
 */
export async function readLogTail(
  logFile: string,
  fromOffset: number,
  maxBytes = OUTPUT_TAIL_BYTES,
): Promise<string> {
  const size = await fileSize(logFile);
  const start = Math.max(fromOffset, size - maxBytes);
  if (size <= start) return "";
  const text = await readRange(logFile, start, size - start).catch(() => "");
  const firstBreak = text.indexOf("\n");
  const cut = start > fromOffset && firstBreak !== -1 ? text.slice(firstBreak + 1) : text;
  return cut.trimEnd();
}

/** Reads the log from `offset` and returns the text and the new end. */
export async function readLogFrom(
  logFile: string,
  offset: number,
): Promise<{ text: string; end: number }> {
  const size = await fileSize(logFile);
  if (size <= offset) return { text: "", end: offset };
  return { text: await readRange(logFile, offset, size - offset), end: size };
}

/**
 * The port from the agent server's `{"event":"listening","port":N}` line, if `text` holds one.
 * Its stderr lands in the same file, so every other line is skipped.
 */
export function findListeningPort(text: string): number | null {
  for (const line of text.split("\n")) {
    if (!line.includes('"listening"')) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      if (
        typeof parsed === "object" &&
        parsed !== null &&
        "event" in parsed &&
        parsed.event === "listening" &&
        "port" in parsed &&
        typeof parsed.port === "number" &&
        Number.isInteger(parsed.port) &&
        parsed.port > 0
      ) {
        return parsed.port;
      }
    } catch {
      // Not JSON: ordinary log output.
    }
  }
  return null;
}

async function readRange(file: string, start: number, length: number): Promise<string> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, start);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}
