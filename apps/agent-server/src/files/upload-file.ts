import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import type { Request } from "express";
import { AppError } from "../errors";

/**
 * Streams the multipart field `file` to `target` (parent directories created). The bytes go to
 * a temporary file beside it first, so a failed upload never leaves half a file behind.
 */
export async function uploadFile(req: Request, target: string): Promise<void> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1 } });
  } catch {
    throw new AppError("BAD_REQUEST", "Expected a multipart/form-data body");
  }
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomUUID()}.part`,
  );
  let written: Promise<void> | undefined;

  parser.on("file", (field, stream) => {
    if (field !== "file" || written) {
      stream.resume();
      return;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    written = pipeline(stream, fs.createWriteStream(temporary));
  });
  try {
    await pipeline(req, parser);
    if (!written) {
      throw new AppError("VALIDATION_FAILED", [
        { type: "missing", loc: ["body", "file"], msg: "Field required" },
      ]);
    }
    await written;
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    if (error instanceof AppError) throw error;
    throw new AppError("BAD_REQUEST", "Upload failed");
  }
}
