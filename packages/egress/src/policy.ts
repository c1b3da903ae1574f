/**
 * What a sandbox may connect to. Core parses and validates user input into these shapes; the
 * runtimes compile them into their enforcer; `decideEgress` is the reference meaning both follow.
 */

/** One destination of a rule, already parsed and normalised. */
export type EgressTarget =
  | {
      kind: "cidr";
      /** Normalised network, a single address as /32 or /128: `10.0.0.0/8`, `2001:db8::/32`. */
      cidr: string;
      /** TCP/UDP port, or null for every port. */
      port: number | null;
    }
  | {
      kind: "host";
      /** Lower-case, no trailing dot. For a wildcard, the suffix without `*.`. */
      name: string;
      /** `*.github.com`: any name below `github.com`, not `github.com` itself. */
      wildcard: boolean;
      port: number | null;
    };

/** A sandbox's own policy, as stored and shown (`network` on the sandbox). */
export interface SandboxEgressPolicy {
  /** Public (global unicast) destinations are allowed unless a deny entry matches. */
  allowInternet: boolean;
  /** Wins over `denyOut`; with `allowInternet: false`, the only destinations allowed. */
  allowOut: EgressTarget[];
  denyOut: EgressTarget[];
}

/**
 * The operator's exceptions to the refused ranges (`SANDBOX_EGRESS_ALLOW`): non-public
 * destinations that sandboxes may reach, e.g. a local LLM at 127.0.0.1:11434. Metadata addresses
 * are never among them.
 */
export interface OperatorEgressPolicy {
  allow: EgressTarget[];
}

export const DEFAULT_SANDBOX_EGRESS: SandboxEgressPolicy = Object.freeze({
  allowInternet: true,
  allowOut: [],
  denyOut: [],
}) as SandboxEgressPolicy;

/**
 * The meaning of a policy, which every enforcer follows. For a connection to `address`:`port`
 * (reached through the name `name`, when the sandbox resolved one):
 * 1. a metadata address or name (`classifyAddress`/`classifyName` → `metadata`): refused, always;
 * 2. an `allowOut` entry matches (address in its CIDR, or the name equal to / below its host
 *    name; and its port, when it has one): allowed;
 * 3. a `denyOut` entry matches: refused;
 * 4. a non-public address: allowed only when an operator entry matches and `allowInternet` is on;
 * 5. a public address: allowed when `allowInternet` is on.
 * Core refuses at create an `allowOut` entry outside what the operator allows (a private address
 * the operator did not open), so rule 2 never widens the operator's policy.
 */
export interface EgressDecision {
  allowed: boolean;
  /** Which rule decided, for denial events: `metadata`, `allow_out pypi.org`, `deny_out 1.2.3.4/32`, `private range (private)`, `allow_internet false`, ... */
  rule: string;
}

/** A connection an enforcer refused. */
export interface EgressDenial {
  sandboxId: string;
  /** `host:port` or `address:port` (IPv6 in brackets), as the sandbox asked for it. */
  destination: string;
  rule: string;
  at: Date;
}
