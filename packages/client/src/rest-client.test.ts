import { expect, inject, it } from "vitest";
import { createRestClient } from "./rest-client";

const { url, apiKey } = inject("server");

it("calls the REST surface with types from the OpenAPI document", async () => {
  const rest = createRestClient({ url, apiKey });
  const created = await rest.POST("/api/v1/sandboxes", { body: { labels: { via: "rest" } } });
  expect(created.response.status).toBe(201);
  const id = created.data?.id ?? "";
  expect(created.data?.labels).toEqual({ via: "rest" });

  const read = await rest.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } });
  expect(read.data?.id).toBe(id);

  const search = await rest.GET("/api/v1/sandboxes/search", {
    params: { query: { label: "via=rest" } },
  });
  expect(search.data?.items.map((sandbox) => sandbox.id)).toEqual([id]);

  const deleted = await rest.DELETE("/api/v1/sandboxes/{id}", { params: { path: { id } } });
  expect(deleted.data).toEqual({ success: true, id });

  const missing = await rest.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error).toMatchObject({ code: "SANDBOX_NOT_FOUND" });
});

it("sends the API key on every call", async () => {
  const rest = createRestClient({ url, apiKey: "ssk_wrong" });
  const result = await rest.GET("/api/v1/sandboxes/search");
  expect(result.response.status).toBe(401);
  expect(result.error?.code).toBeTypeOf("string");
});

it("asks for a signed port URL over REST", async () => {
  const rest = createRestClient({ url, apiKey });
  const created = await rest.POST("/api/v1/sandboxes", {
    body: { ports: [{ port: 8080, name: "WEB" }] },
  });
  const id = created.data?.id ?? "";
  const port = await rest.GET("/api/v1/sandboxes/{id}/ports/{port}", {
    params: { path: { id, port: 8080 }, query: { expires_in_s: 60 } },
  });
  expect(port.data).toMatchObject({ port: 8080, url: expect.stringContaining("p8080-") });
  await rest.DELETE("/api/v1/sandboxes/{id}", { params: { path: { id } } });
});
