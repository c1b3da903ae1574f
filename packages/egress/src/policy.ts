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
