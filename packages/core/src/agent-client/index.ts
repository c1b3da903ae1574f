export * from "./agent-client";
