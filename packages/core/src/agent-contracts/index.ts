export * from "@sandbox-server/agent-contracts";
