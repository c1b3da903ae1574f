import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

const auth = { "x-session-api-key": SESSION_KEY };

function upload(route: string, bytes: Uint8Array, field = "file", headers = auth) {
  const form = new FormData();
  form.append(field, new Blob([bytes]), "upload.bin");
  return fetch(`${server.baseUrl}${route}`, { method: "POST", body: form, headers });
}

describe("file upload and download", () => {
  it("uploads to an absolute path (creating directories) and downloads the same bytes", async () => {
    const bytes = Buffer.from(new Uint8Array(300_000).map((_, i) => (i * 7) % 256));
    const target = path.join(server.workspaceDir, "deep/dir/data.bin");
    const uploaded = await upload(`/api/file/upload?path=${encodeURIComponent(target)}`, bytes);
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({ success: true });
    expect(fs.readFileSync(target).equals(bytes)).toBe(true);

    const downloaded = await fetch(
      `${server.baseUrl}/api/file/download?path=${encodeURIComponent(target)}`,
      { headers: auth },
    );
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-type")).toBe("application/octet-stream");
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("accepts the path in the URL, as upstream clients send it", async () => {
    const target = path.join(server.workspaceDir, "by-url.txt");
    expect((await upload(`/api/file/upload${target}`, new TextEncoder().encode("hi"))).status).toBe(
      200,
    );
    const downloaded = await fetch(`${server.baseUrl}/api/file/download${target}`, {
      headers: auth,
    });
    expect(await downloaded.text()).toBe("hi");
  });

  it("answers 400 for relative paths, 404 for missing files, 422 without a file field", async () => {
    const relative = await upload("/api/file/upload?path=relative.txt", new Uint8Array([1]));
    expect(relative.status).toBe(400);
    expect(await relative.json()).toEqual({ detail: "path must be absolute" });
    const download = (query: string) =>
      fetch(`${server.baseUrl}/api/file/download?${query}`, { headers: auth });
    expect((await download("path=relative.txt")).status).toBe(400);
    expect((await download(`path=${server.workspaceDir}/missing`)).status).toBe(404);
    expect((await download(`path=${server.workspaceDir}`)).status).toBe(400);
    const noField = await upload(
      `/api/file/upload?path=${server.workspaceDir}/x`,
      new Uint8Array([1]),
      "other",
    );
    expect(noField.status).toBe(422);
    expect(fs.existsSync(`${server.workspaceDir}/x`)).toBe(false);
  });

  it("requires the session key", async () => {
    const response = await upload(
      `/api/file/upload?path=${server.workspaceDir}/y`,
      new Uint8Array([1]),
      "file",
      {
        "x-session-api-key": "wrong",
      },
    );
    expect(response.status).toBe(401);
  });
});
