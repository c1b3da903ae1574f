export * from "./client";
export * from "./paging";
export * from "./repositories";
export * as schema from "./schema";
