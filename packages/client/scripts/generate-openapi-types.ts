// Writes src/generated/openapi.ts from the OpenAPI document the core produces.
import { writeFileSync } from "node:fs";
import { openApiTypesFile, renderOpenApiTypes } from "./openapi-types";

writeFileSync(openApiTypesFile, await renderOpenApiTypes());
console.log(`wrote ${openApiTypesFile}`);
