import { AppError } from "../../errors";
import type { DestinationDeps } from "../destination/destination-policy";
import {
  DnsFailure,
  type Refusal,
  targetOf,
  vetDestination,
} from "../destination/destination-policy";

const PRIVATE_HINT =
  "webhook destinations must be public addresses (a server started with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true accepts private networks, for local development)";

const REASONS: Record<Refusal, string> = {
  loopback: `url resolves to a loopback address; ${PRIVATE_HINT}`,
  private: `url resolves to a private address; ${PRIVATE_HINT}`,
  cgnat: `url resolves to a carrier-grade NAT address (100.64.0.0/10); ${PRIVATE_HINT}`,
  "link-local": "url resolves to a link-local address, which is never a webhook destination",
  multicast: "url resolves to a multicast address, which is never a webhook destination",
  unspecified: "url resolves to an unspecified address, which is never a webhook destination",
  broadcast: "url resolves to a broadcast address, which is never a webhook destination",
  reserved: "url resolves to a reserved address, which is never a webhook destination",
  metadata: "url points at a cloud metadata service, which is never a webhook destination",
  "control-plane": "url points at this control plane, which is never a webhook destination",
  "agent-server": "url points at a sandbox's agent server, which is never a webhook destination",
};

/**
 * Refuses (422) a webhook URL whose host is, or resolves to, an address webhooks may not reach.
 * A name that does not resolve now is accepted: DNS may not know it yet, and every connection is
 * checked again anyway (see `checked-connector.ts`).
 */
export async function assertAllowedDestination(deps: DestinationDeps, url: string): Promise<void> {
  let verdict: Awaited<ReturnType<typeof vetDestination>>;
  try {
    verdict = await vetDestination(deps, targetOf(url));
  } catch (error) {
    if (error instanceof DnsFailure) return;
    throw error;
  }
  if (verdict.ok) return;
  const message = REASONS[verdict.refusal];
  throw new AppError("VALIDATION_FAILED", message, {
    issues: [{ path: ["url"], message, code: "destination_refused" }],
  });
}
