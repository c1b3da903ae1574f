import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { openApiTypesFile, renderOpenApiTypes } from "./openapi-types";

it("src/generated/openapi.ts matches the server's OpenAPI document", async () => {
  const committed = readFileSync(openApiTypesFile, "utf8");
  const current = await renderOpenApiTypes();
  // On failure: npm run generate -w @sandbox-server/client, then commit the file.
  expect(committed).toBe(current);
  expect(current).toContain('"/api/v1/sandboxes/{id}"');
});
