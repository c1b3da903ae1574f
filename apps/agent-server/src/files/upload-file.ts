import { randomUUID } from "node:crypto";
import fs from "node:fs";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { finished, pipeline } from "node:stream/promises";
import { AppError } from "../errors";
import { tooLarge } from "../http/json-body";
import { fsErrorToAppError } from "./fs-errors";

/** Room for the multipart framing around the file when judging a declared Content-Length. */
const MULTIPART_SLACK_BYTES = 64 * 1024;

/**
 * Streams the multipart field `file` to the path `resolveTarget` gives (called once the request
 * looks like an upload; it creates parent directories). The bytes go to a temporary file beside
 * the target, renamed over it at the end: a failed, oversized or aborted upload leaves neither
 * half a file nor the temporary one. Every failure is an AppError; none escapes as a crash.
 */
export async function uploadFile(
  req: IncomingMessage,
  resolveTarget: () => string,
  limitBytes: number,
): Promise<void> {
  const declared = Number(req.headers["content-length"]);
  if (declared > limitBytes + MULTIPART_SLACK_BYTES) throw tooLarge(limitBytes);
  // Multipart parsing is loaded on the first upload only.
  const { default: busboy } = await import("busboy");
  let parser: ReturnType<typeof busboy>;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: 1, fileSize: limitBytes, fields: 20, fieldSize: 64 * 1024, parts: 40 },
    });
  } catch {
    throw new AppError("BAD_REQUEST", "Expected a multipart/form-data body");
  }
  const target = resolveTarget();
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomUUID()}.part`,
  );
  let file: fs.WriteStream | undefined;
  let written: Promise<void> | undefined;

  const parsed = new Promise<void>((resolve, reject) => {
    finished(parser).then(resolve, () =>
      reject(new AppError("BAD_REQUEST", "Malformed multipart/form-data body")),
    );
    req.once("close", () => {
      if (!req.complete) reject(new AppError("BAD_REQUEST", "Upload incomplete"));
    });
    parser.on("file", (field, stream) => {
      if (field !== "file" || written) {
        stream.resume();
        return;
      }
      stream.once("limit", () => reject(tooLarge(limitBytes)));
      file = fs.createWriteStream(temporary, { flags: "wx" });
      written = pipeline(stream, file);
      written.catch((error: unknown) => reject(fsErrorToAppError(error, "write")));
    });
  });
  req.pipe(parser);

  try {
    await parsed;
    if (!written) {
      throw new AppError("VALIDATION_FAILED", [
        { type: "missing", loc: ["body", "file"], msg: "Field required" },
      ]);
    }
    await written;
    fs.renameSync(temporary, target);
  } catch (error) {
    req.unpipe(parser);
    parser.destroy();
    file?.destroy();
    // The temporary file may still be opening: remove it only once its stream has settled.
    await written?.catch(() => {});
    fs.rmSync(temporary, { force: true });
    throw error instanceof AppError ? error : fsErrorToAppError(error, "write");
  }
}
