import type { AgentServerContext } from "../context";
import { sendJson } from "../http/respond";
import type { Handler, Router } from "../http/router";
import { downloadFile } from "./download-file";
import { filePathOf } from "./file-path";
import { resolveForRead, resolveForWrite } from "./files-root";
import { uploadFile } from "./upload-file";

/** `/api/file`: upload and download by absolute path, confined to the files root. */
export function fileRoutes(router: Router, ctx: AgentServerContext): void {
  const upload: Handler = async (req, res) => {
    const requested = filePathOf(req.query, req.rest);
    await uploadFile(
      req.raw,
      () => resolveForWrite(ctx.filesRoot, requested),
      ctx.state.limits.uploadLimitBytes,
    );
    sendJson(res, { success: true });
  };
  router.post("/api/file/upload", upload, "stream");
  router.post("/api/file/upload/*path", upload, "stream");

  const download: Handler = async (req, res) => {
    await downloadFile(res, resolveForRead(ctx.filesRoot, filePathOf(req.query, req.rest)));
  };
  router.get("/api/file/download", download);
  router.get("/api/file/download/*path", download);
}
