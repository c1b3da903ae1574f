import fs from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError } from "../errors";
import { fsErrorToAppError } from "./fs-errors";

/**
 * Streams the regular file at `real` (a resolved path, see files-root.ts). Everything that can
 * fail is checked before the first byte is sent; a failure mid-stream closes the connection.
 */
export async function downloadFile(res: ServerResponse, real: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    // Checked before opening: opening a FIFO for reading would wait for a writer.
    if (!fs.statSync(real).isFile()) {
      throw new AppError("BAD_REQUEST", "path is not a regular file");
    }
    handle = await fs.promises.open(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    throw error instanceof AppError ? error : fsErrorToAppError(error, "read");
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new AppError("BAD_REQUEST", "path is not a regular file");
    res.setHeader("Content-Type", "application/octet-stream");
    res.setHeader("Content-Length", stats.size);
    res.setHeader("Content-Disposition", attachment(path.basename(real)));
  } catch (error) {
    await handle.close();
    throw error instanceof AppError ? error : fsErrorToAppError(error, "read");
  }
  try {
    await pipeline(handle.createReadStream(), res);
  } catch {
    // A client that left, or a read error after the headers went out: nothing left to answer.
    res.destroy();
  }
}

/** `attachment` with an ASCII fallback name and the exact UTF-8 one (RFC 6266). */
function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
