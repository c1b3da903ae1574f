import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_KEY, startTestServer, type TestServer } from "../../test/harness";

const auth = { "x-session-api-key": SESSION_KEY };

async function upload(server: TestServer, target: string, content = "data") {
  const form = new FormData();
  form.append("file", new Blob([new TextEncoder().encode(content)]), "upload.bin");
  const route = `/api/file/upload?path=${encodeURIComponent(target)}`;
  const response = await fetch(`${server.baseUrl}${route}`, {
    method: "POST",
    body: form,
    headers: auth,
  });
  return { status: response.status, body: await response.json() };
}

async function download(server: TestServer, target: string) {
  const route = `/api/file/download?path=${encodeURIComponent(target)}`;
  const response = await fetch(`${server.baseUrl}${route}`, { headers: auth });
  const text = await response.text();
  return { status: response.status, body: response.ok ? text : JSON.parse(text) };
}

const outsideRoot = { status: 403, body: { detail: "path is outside the files root" } };

describe("FILES_ROOT confines the file routes", () => {
  let server: TestServer;
  let root: string;
  let outside: string;
  beforeAll(async () => {
    outside = fs.mkdtempSync(path.join(os.tmpdir(), "files-root-outside-"));
    fs.writeFileSync(path.join(outside, "secret.txt"), "secret");
    root = fs.mkdtempSync(path.join(os.tmpdir(), "files-root-"));
    server = await startTestServer({ filesRoot: root });
    fs.symlinkSync(outside, path.join(root, "link-out"));
    fs.mkdirSync(path.join(root, "inner"));
    fs.symlinkSync(path.join(root, "inner"), path.join(root, "link-in"));
  });
  afterAll(async () => {
    await server.dispose();
    fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("serves paths inside the root, also through symlinks that stay inside", async () => {
    expect(await upload(server, path.join(root, "a/b.txt"))).toEqual({
      status: 200,
      body: { success: true },
    });
    expect(await download(server, path.join(root, "a/b.txt"))).toEqual({
      status: 200,
      body: "data",
    });
    expect((await upload(server, path.join(root, "link-in/c.txt"))).status).toBe(200);
    expect(fs.readFileSync(path.join(root, "inner/c.txt"), "utf8")).toBe("data");
    // `..` is resolved before the check: this one ends inside.
    expect(await download(server, path.join(root, "a/../a/b.txt"))).toEqual({
      status: 200,
      body: "data",
    });
  });

  it("refuses paths outside the root, also by `..` and by symlinks", async () => {
    const secret = path.join(outside, "secret.txt");
    expect(await download(server, secret)).toEqual(outsideRoot);
    expect(await download(server, path.join(root, "../..", secret))).toEqual(outsideRoot);
    expect(await download(server, path.join(root, "link-out/secret.txt"))).toEqual(outsideRoot);
    expect(await upload(server, path.join(outside, "new.txt"))).toEqual(outsideRoot);
    expect(await upload(server, path.join(root, "link-out/new.txt"))).toEqual(outsideRoot);
    expect(await upload(server, path.join(root, "link-out/deep/new.txt"))).toEqual(outsideRoot);
    expect(await upload(server, `${root}/../escape.txt`)).toEqual(outsideRoot);
    expect(fs.readdirSync(outside)).toEqual(["secret.txt"]);
    expect(fs.existsSync(path.join(path.dirname(root), "escape.txt"))).toBe(false);
  });

  it("replaces a symlink at the target instead of writing through it", async () => {
    const link = path.join(root, "points-out.txt");
    fs.symlinkSync(path.join(outside, "secret.txt"), link);
    expect(await download(server, link)).toEqual(outsideRoot);
    expect((await upload(server, link, "replaced")).status).toBe(200);
    expect(fs.lstatSync(link).isFile()).toBe(true);
    expect(fs.readFileSync(link, "utf8")).toBe("replaced");
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("secret");
  });
});

describe("the default root", () => {
  it("is `/`, as upstream: any absolute path the server can reach", async () => {
    const server = await startTestServer();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "files-root-default-"));
    try {
      const target = path.join(elsewhere, "x.txt");
      expect((await upload(server, target)).status).toBe(200);
      expect(await download(server, target)).toEqual({ status: 200, body: "data" });
    } finally {
      await server.dispose();
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
