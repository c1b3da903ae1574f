export type { AppRouter } from "@sandbox-server/core";
