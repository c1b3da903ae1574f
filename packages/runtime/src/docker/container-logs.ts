import type Dockerode from "dockerode";

/** Characters of output kept for an exited sandbox's detail. */
const TAIL_CHARS = 1500;

/**
 * The last lines the container wrote, for the detail of an exited sandbox (why did the agent
 * server die at boot?). Best effort: a failure to read logs must not hide the exit itself.
 */
export async function readContainerLogTail(
  container: Dockerode.Container,
  lines = 20,
): Promise<string> {
  try {
    const raw: unknown = await container.logs({
      stdout: true,
      stderr: true,
      follow: false,
      tail: lines,
    });
    const buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw));
    const text = demultiplex(buffer).trimEnd();
    return text.length > TAIL_CHARS ? `…${text.slice(-TAIL_CHARS)}` : text;
  } catch {
    return "";
  }
}

/**
 * Without a TTY, Docker frames each chunk with an 8-byte header: stream type, three zero bytes,
 * and a big-endian length. Anything that does not parse as frames is returned as it is.
 */
export function demultiplex(buffer: Buffer): string {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const zeros = buffer[offset + 1] === 0 && buffer[offset + 2] === 0 && buffer[offset + 3] === 0;
    if (!(stream === 0 || stream === 1 || stream === 2) || !zeros) break;
    const size = buffer.readUInt32BE(offset + 4);
    chunks.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  if (offset < buffer.length && chunks.length === 0) return buffer.toString("utf8");
  return Buffer.concat(chunks).toString("utf8");
}
