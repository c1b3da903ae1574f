import type { AppConversation, Sandbox } from "@sandbox-server/client";
import { type Column, formatLabels, type Output, orDash, printFields, shortTime } from "../output";

export const sandboxColumns: Column<Sandbox>[] = [
  { header: "ID", value: (s) => s.id },
  { header: "STATUS", value: (s) => s.status },
  { header: "SPEC", value: (s) => s.sandbox_spec_id },
  { header: "CREATED", value: (s) => shortTime(s.created_at) },
  { header: "LABELS", value: (s) => formatLabels(s.labels) },
];

/** A sandbox for a person; the session key only with --json, so it is not left on a screen. */
export function printSandbox(out: Output, sandbox: Sandbox): void {
  printFields(out, [
    ["id", sandbox.id],
    ["status", sandbox.status],
    ...(sandbox.status_detail ? [["detail", sandbox.status_detail] as [string, string]] : []),
    ["spec", sandbox.sandbox_spec_id],
    ["agent server", orDash(sandbox.agent_server_url)],
    ["labels", formatLabels(sandbox.labels)],
    ["network", formatNetwork(sandbox.network)],
    ["created", shortTime(sandbox.created_at)],
    ["updated", shortTime(sandbox.updated_at)],
    ["active time", `${sandbox.active_time_s} s`],
    ["expires", sandbox.expires_at ? shortTime(sandbox.expires_at) : "-"],
    ["lifetime", formatLifetime(sandbox.lifetime)],
  ]);
}

/** `internet; allow pypi.org, 127.0.0.1:11434; deny *.example.com` */
export function formatNetwork(network: Sandbox["network"]): string {
  return [
    network.allow_internet ? "internet" : "no internet",
    ...(network.allow_out.length > 0 ? [`allow ${network.allow_out.join(", ")}`] : []),
    ...(network.deny_out.length > 0 ? [`deny ${network.deny_out.join(", ")}`] : []),
  ].join("; ");
}

/** `timeout 3600 s → pause, idle pause 300 s, delete after 86400 s paused`, or `-`. */
function formatLifetime(lifetime: Sandbox["lifetime"]): string {
  const rules = [
    lifetime.timeout_s === null ? null : `timeout ${lifetime.timeout_s} s → ${lifetime.on_timeout}`,
    lifetime.idle_pause_after_s === null ? null : `idle pause ${lifetime.idle_pause_after_s} s`,
    lifetime.delete_paused_after_s === null
      ? null
      : `delete after ${lifetime.delete_paused_after_s} s paused`,
  ].filter((rule) => rule !== null);
  return rules.length === 0 ? "-" : rules.join(", ");
}

function conversationState(c: AppConversation): string {
  return c.archived ? "archived" : orDash(c.sandbox_status);
}

export const conversationColumns: Column<AppConversation>[] = [
  { header: "ID", value: (c) => c.id },
  { header: "SANDBOX", value: (c) => c.sandbox_id },
  { header: "STATUS", value: conversationState },
  { header: "AGENT", value: (c) => orDash(c.execution_status) },
  { header: "CREATED", value: (c) => shortTime(c.created_at) },
  { header: "TITLE", value: (c) => orDash(c.title) },
];

export function printConversation(out: Output, conversation: AppConversation): void {
  const agentKind = conversation.agent.kind;
  printFields(out, [
    ["id", conversation.id],
    ["title", orDash(conversation.title)],
    ["sandbox", conversation.sandbox_id],
    ["status", conversationState(conversation)],
    ["agent", typeof agentKind === "string" ? agentKind : "-"],
    ["agent status", orDash(conversation.execution_status)],
    ["url", orDash(conversation.conversation_url)],
    ["created", shortTime(conversation.created_at)],
    ["updated", shortTime(conversation.updated_at)],
  ]);
}
