export * from "@sandbox-server/agent-contracts";
export * from "./agent-client";
export { hashApiKey } from "./auth/api-keys";
export * from "./context";
export * from "./core-events";
export * from "./create-core";
export * from "./deps";
export * from "./describe-error";
export * from "./errors";
export type { EventFollower } from "./events/ingest/event-follower";
export type { IngestConfig } from "./events/ingest/ingest-deps";
export type { IngestWorkerData } from "./events/ingest/protocol";
export * from "./logger";
export type { CoreMetrics, DeliveryOutcome, ForwardOutcome } from "./metrics";
export * from "./openapi";
export * from "./router";
export { defaultMaxRunningSandboxes } from "./sandboxes/default-limit";
export { type OpenedPort, openPortForHost } from "./sandboxes/ports/open-port";
export { type PortPath, PortRoutes } from "./sandboxes/ports/port-routes";
export { MAX_INPUT_DEPTH, nestsDeeperThan } from "./shared/json-depth";
export {
  DEFAULT_PORT_URL_TTL_S,
  MAX_PORT_URL_TTL_S,
  type PortUrlSigner,
  parsePortHost,
} from "./state/port-urls";
export type { Meta } from "./trpc";
export { bootstrapAdmin } from "./users/bootstrap-admin";
export { type WebhookPayload, webhookEventKinds } from "./webhooks/contracts";
export type { DeliveryWorker } from "./webhooks/delivery/delivery-worker";
export { signDelivery } from "./webhooks/service/sign";
