import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

const UPLOAD_LIMIT = 64 * 1024;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ limits: { uploadLimitBytes: UPLOAD_LIMIT } });
});
afterAll(() => server.dispose());

const auth = { "x-session-api-key": SESSION_KEY };

function upload(target: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([bytes]), "upload.bin");
  const route = `/api/file/upload?path=${encodeURIComponent(target)}`;
  return fetch(`${server.baseUrl}${route}`, { method: "POST", body: form, headers: auth });
}

const leftovers = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith(".part"));

/** Starts a chunked multipart upload by hand and returns its request, still open. */
function startStreamingUpload(target: string) {
  const boundary = "----limits-test";
  const req = http.request(`${server.baseUrl}/api/file/upload?path=${encodeURIComponent(target)}`, {
    method: "POST",
    headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
  });
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  return { req, response };
}

describe("upload size limit", () => {
  it("accepts a file under the limit and answers 413 over it, leaving nothing behind", async () => {
    const dir = path.join(server.workspaceDir, "limit");
    const small = path.join(dir, "small.bin");
    expect((await upload(small, new Uint8Array(UPLOAD_LIMIT / 2))).status).toBe(200);
    expect(fs.statSync(small).size).toBe(UPLOAD_LIMIT / 2);

    const large = path.join(dir, "large.bin");
    const response = await upload(large, new Uint8Array(UPLOAD_LIMIT * 3));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
    expect(fs.existsSync(large)).toBe(false);
    expect(leftovers(dir)).toEqual([]);
  });

  it("answers 413 when a body without a length grows past the limit mid-way", async () => {
    const target = path.join(server.workspaceDir, "streamed.bin");
    const { req, response } = startStreamingUpload(target);
    const chunk = Buffer.alloc(16 * 1024, 7);
    for (let sent = 0; sent <= UPLOAD_LIMIT * 2; sent += chunk.length) req.write(chunk);
    req.end("\r\n------limits-test--\r\n");
    const answer = await response;
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ detail: expect.any(String) });
    expect(fs.existsSync(target)).toBe(false);
    expect(leftovers(server.workspaceDir)).toEqual([]);
  });
});

describe("an upload the client abandons", () => {
  it("leaves neither the file nor its temporary file", async () => {
    const dir = path.join(server.workspaceDir, "aborted");
    fs.mkdirSync(dir);
    const target = path.join(dir, "never.bin");
    const { req, response } = startStreamingUpload(target);
    response.catch(() => {}); // the request is destroyed below
    req.write(Buffer.alloc(8 * 1024, 1));
    // The bytes are being written: a temporary file beside the target exists...
    await expect.poll(() => leftovers(dir).length, { timeout: 10_000 }).toBe(1);
    req.destroy();
    // ...and is removed once the server sees the connection gone.
    await expect.poll(() => leftovers(dir), { timeout: 10_000 }).toEqual([]);
    expect(fs.existsSync(target)).toBe(false);
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  });
});
