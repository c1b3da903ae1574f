export type {
  AppRouter,
  RouterInputs,
  RouterOutputs,
  SandboxErrorData,
  SandboxErrorIssue,
  SandboxErrorShape,
} from "./app-router";
export { describeClientError, type SandboxErrorInfo } from "./errors";
export { type FollowEventsOptions, followConversationEvents } from "./follow-events";
export type {
  components as RestComponents,
  operations as RestOperations,
  paths as RestPaths,
} from "./generated/openapi";
export { type PollOptions, WaitTimeoutError } from "./poll";
export { createRestClient, type RestClient } from "./rest-client";
export {
  createSandboxClient,
  type SandboxClient,
  type SandboxClientOptions,
} from "./trpc-client";
export type {
  AppConversation,
  ConversationEvent,
  ExecutionStatus,
  Sandbox,
  SandboxNetwork,
  SandboxPortUrl,
  SandboxStatus,
} from "./types";
export {
  SandboxFailedError,
  settledExecutionStatuses,
  waitForConversationSettled,
  waitForSandboxStatus,
} from "./wait-for";
