export * from "./agent-contracts";
