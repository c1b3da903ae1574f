import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createOpenApiDocument } from "@sandbox-server/core";
import openapiTS, { astToString } from "openapi-typescript";

/** Where the generated types live, committed beside the client's sources. */
export const openApiTypesFile = fileURLToPath(
  new URL("../src/generated/openapi.ts", import.meta.url),
);

const header = `// Generated from the server's OpenAPI document by scripts/generate-openapi-types.ts.
// Do not edit: run \`npm run generate -w @sandbox-server/client\` after changing a procedure.

`;

/** Formats like every other source file, so the generated file passes \`biome check\` as it is. */
function format(source: string): string {
  const biome = fileURLToPath(new URL("../../../node_modules/.bin/biome", import.meta.url));
  const result = spawnSync(biome, ["format", `--stdin-file-path=${openApiTypesFile}`], {
    input: source,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr}`);
  return result.stdout;
}

/** The REST surface's types (`paths`, `components`, `operations`) from the core's document. */
export async function renderOpenApiTypes(): Promise<string> {
  const document = createOpenApiDocument("");
  const ast = await openapiTS(JSON.stringify(document));
  return format(header + astToString(ast));
}
