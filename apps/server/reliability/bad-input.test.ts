import { createOpenApiDocument } from "@sandbox-server/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, isErrorBody, rawRequest, toApiResponse } from "./lib/api";
import {
  type BadRequest,
  badRequests,
  type OpenApiDocument,
  readOperations,
} from "./lib/operation-cases";
import { ADMIN_KEY, type ServerProcess, startServerProcess } from "./lib/server-process";

/** Fixed, so a failure reproduces: the seed of operation i is SEED + i. */
const SEED = 20_251_122;
const CASES_PER_OPERATION = 300;
const IN_FLIGHT = 4;
const TEN_MB = 10 * 1024 * 1024;

let server: ServerProcess;
let conversationId: string;
let doc: OpenApiDocument;

beforeAll(async () => {
  // One sandbox fills the server, so a request that slipped through validation would answer 429
  // (or act on ids that do not exist) instead of starting sandboxes.
  server = await startServerProcess({ env: { MAX_RUNNING_SANDBOXES: "1" } });
  const created = await server.api("POST", "/api/v1/app-conversations", { body: {} });
  expect(created.status, created.text).toBe(201);
  conversationId = created.body.id;
  doc = (await server.api("GET", "/api/v1/openapi.json", { key: null })).body;
});

afterAll(async () => {
  await server?.dispose();
});

function send(req: BadRequest): Promise<ApiResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` };
  if (req.contentType) headers["content-type"] = req.contentType;
  return rawRequest(`${server.url}${req.url}`, { method: req.method, headers, body: req.body });
}

/** What is wrong with an answer to a bad request; null when it is right. */
function judge(req: BadRequest, res: ApiResponse): string | null {
  if (!req.expect.includes(res.status)) return `status ${res.status}, expected ${req.expect}`;
  if (!isErrorBody(res)) return `not a JSON error body with a code: ${res.text.slice(0, 200)}`;
  if (/\n\s+at .+:\d+:\d+/.test(res.text)) return "a stack trace in the body";
  return null;
}

async function runAll(requests: BadRequest[]) {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++]!;
      const res = await send(req);
      const problem = judge(req, res);
      if (problem) {
        const body = typeof req.body === "string" ? req.body.slice(0, 160) : req.body;
        failures.push(
          `[${req.category}] ${req.method} ${req.url.slice(0, 160)} ${body ?? ""} → ${problem}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return failures;
}

// The operations as the code declares them (names for the tests); the first test checks that the
// served document has exactly these.
const declared = readOperations(createOpenApiDocument("") as unknown as OpenApiDocument);
const declaredNames = declared.operations.map((op) => `${op.method} ${op.path}`);

describe("generated bad input, per REST operation", () => {
  it("the served OpenAPI document has exactly the operations the suite covers", () => {
    const served = readOperations(doc).operations.map((op) => `${op.method} ${op.path}`);
    expect(served.sort()).toEqual([...declaredNames].sort());
    expect(served.length).toBeGreaterThanOrEqual(13);
  });

  it.each(declaredNames)("%s: never a 500, always the right 4xx with a JSON code", async (name) => {
    const { operations, resolve } = readOperations(doc);
    const index = operations.findIndex((op) => `${op.method} ${op.path}` === name);
    const op = operations[index];
    if (!op) throw new Error(`${name} is not in the served OpenAPI document`);
    const ids = { uuid: conversationId, other: "no_such_id_0000000000" };
    const requests = fc.sample(badRequests(op, resolve, ids), {
      seed: SEED + index,
      numRuns: CASES_PER_OPERATION,
    });
    const failures = await runAll(requests);
    expect(failures.slice(0, 15), `${failures.length} of ${requests.length} cases failed`).toEqual(
      [],
    );
  });
});

describe("bodies beyond limits", () => {
  it("answers 413 with a JSON code to a 10 MB body on every operation that takes one", async () => {
    const { operations } = readOperations(doc);
    const big = JSON.stringify({ title: "x".repeat(TEN_MB) });
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.method === "POST")) {
      const url = op.path
        .replace("{conversation_id}", conversationId)
        .replace("{id}", "sb_no_such_sandbox_0000000000");
      for (const chunked of [false, true]) {
        const body = chunked ? streamOf(big) : big;
        const res = await fetch(`${server.url}${url}`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
          body,
          ...(chunked ? { duplex: "half" } : {}),
        } as RequestInit).then(toApiResponse, (error: Error) => error);
        if (res instanceof Error) {
          failures.push(`${url} chunked=${chunked}: ${res.message}`);
          continue;
        }
        if (res.status !== 413 || res.body?.code !== "PAYLOAD_TOO_LARGE") {
          failures.push(`${url} chunked=${chunked}: ${res.status} ${res.text.slice(0, 100)}`);
        }
      }
    }
    const trpc = await fetch(`${server.url}/trpc/sandboxes.start`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: big,
    });
    if (trpc.status !== 413) failures.push(`/trpc/sandboxes.start: ${trpc.status}`);
    expect(failures).toEqual([]);
  });

  it("survives deeply nested JSON (10 000 and 100 000 levels) in bodies and fields", async () => {
    const arrays = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const objects = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
    const message = (extra: string) =>
      `{"role":"user","content":[{"type":"text","text":"deep"}],"run":false,"extra":${extra}}`;
    const bodies: [string, string][] = [
      ["/api/v1/sandboxes", arrays(10_000)],
      ["/api/v1/sandboxes", objects(100_000)],
      ["/api/v1/sandboxes", `{"labels":${objects(10_000)}}`],
      ["/api/v1/app-conversations", `{"initial_message":{"content":${arrays(10_000)}}}`],
      ["/api/v1/app-conversations", `{"agent":{"kind":"shell","x":${arrays(100_000)}}}`],
      ["/api/v1/users", `{"name":${arrays(100_000)}}`],
      [`/api/v1/app-conversations/${conversationId}/send-message`, arrays(10_000)],
      [`/api/v1/app-conversations/${conversationId}/send-message`, message(arrays(10_000))],
      [`/api/v1/app-conversations/${conversationId}/send-message`, message(objects(100_000))],
      ["/trpc/sandboxes.start", arrays(10_000)],
      ["/trpc/conversations.create", `{"agent":{"kind":"shell","x":${arrays(100_000)}}}`],
      ["/trpc/users.create", `{"name":${objects(100_000)}}`],
    ];
    const failures: string[] = [];
    for (const [url, body] of bodies) {
      const res = await send({
        category: "deep",
        method: "POST",
        url,
        body,
        contentType: "application/json",
        expect: [],
      });
      const rest = url.startsWith("/api/");
      if (res.status >= 500 || (rest && res.status >= 400 && !isErrorBody(res))) {
        failures.push(`${url} (${body.length} bytes): ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("afterwards", () => {
  it("the server is healthy, still the same process, and logged no internal error", async () => {
    const health = await server.api("GET", "/health", { key: null });
    expect(health.status).toBe(200);
    expect(process.kill(server.pid, 0)).toBe(true);
    const internal = server
      .output()
      .split("\n")
      .filter((line) => /"level":(50|60)/.test(line));
    expect(internal.slice(0, 5)).toEqual([]);
    const read = await server.api("GET", `/api/v1/app-conversations/${conversationId}`);
    expect(read.status).toBe(200);
  });
});

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 65_536));
      offset += 65_536;
    },
  });
}
