import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { type Request, type Response, Router } from "express";
import { AppError, notFound } from "../errors";
import { filePathOf } from "./file-path";
import { uploadFile } from "./upload-file";

/** `/api/file`: upload and download by absolute path. */
export function fileRoutes(): Router {
  const router = Router();

  const upload = async (req: Request, res: Response) => {
    await uploadFile(req, filePathOf(req.query, req.params.path));
    res.json({ success: true });
  };
  router.post("/upload", upload);
  router.post("/upload/*path", upload);

  const download = async (req: Request, res: Response) => {
    const file = filePathOf(req.query, req.params.path);
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    if (!stats) throw notFound("File");
    if (!stats.isFile()) throw new AppError("BAD_REQUEST", "path is not a regular file");
    res.setHeader("Content-Type", "application/octet-stream");
    res.setHeader("Content-Length", stats.size);
    res.attachment(path.basename(file));
    await pipeline(fs.createReadStream(file), res);
  };
  router.get("/download", download);
  router.get("/download/*path", download);
  return router;
}
