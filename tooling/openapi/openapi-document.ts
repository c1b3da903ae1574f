// Writes the OpenAPI document the control plane serves at /api/v1/openapi.json to the file named
// by the first argument (stdout without one). Offline: the document is built from the procedures'
// meta, exactly as apps/server does at start (`createOpenApiDocument("")`).
import { writeFileSync } from "node:fs";
import { createOpenApiDocument } from "@sandbox-server/core";

const text = `${JSON.stringify(createOpenApiDocument(""), null, 2)}\n`;
const out = process.argv[2];
if (out) writeFileSync(out, text);
else process.stdout.write(text);
