export * from "./docker";
export * from "./health";
export * from "./process/process-runtime";
export type * from "./types";
