import type { RouterOutputs } from "./app-router";

/** A sandbox as the control plane shows it to its owner. */
export type Sandbox = RouterOutputs["sandboxes"]["get"];
export type SandboxStatus = Sandbox["status"];
/** A sandbox's egress policy as shown (`sandboxes.updateNetwork` takes its fields, each optional). */
export type SandboxNetwork = Sandbox["network"];
/** A signed URL to a port of a sandbox (`sandboxes.getPort`). */
export type SandboxPortUrl = RouterOutputs["sandboxes"]["getPort"];
/** A conversation with an agent, hosted by a sandbox's agent server. */
export type AppConversation = RouterOutputs["conversations"]["get"];
export type ExecutionStatus = NonNullable<AppConversation["execution_status"]>;
/** An event of a conversation as the control plane stored it (the agent server's event as sent). */
export type ConversationEvent = RouterOutputs["events"]["search"]["items"][number];
