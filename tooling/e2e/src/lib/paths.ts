import { fileURLToPath } from "node:url";

/** The checkout these checks belong to. */
export const repoRoot = fileURLToPath(new URL("../../../..", import.meta.url));
