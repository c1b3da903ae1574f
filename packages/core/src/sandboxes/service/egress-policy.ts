import type { SandboxSpecRow } from "@sandbox-server/db";
import {
  checkWithinOperator,
  DEFAULT_SANDBOX_EGRESS,
  type EgressTarget,
  formatEgressTarget,
  parseEgressEntry,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import type { CoreConfig } from "../../deps";
import { AppError, type ErrorIssue } from "../../errors";
import type { SandboxNetwork, SandboxNetworkInput } from "../network-contracts";

/** The policy a spec's sandboxes get when the create sets none. */
export function specEgressPolicy(spec: SandboxSpecRow): SandboxEgressPolicy {
  return spec.network ?? DEFAULT_SANDBOX_EGRESS;
}

/**
 * `base` with the fields `input` carries replaced, each entry parsed (the contract has checked
 * that it parses) and every `allow_out` entry checked against the operator's policy: one that
 * would widen it is 422 naming the entry and why. `path` is where `network` sits in the request.
 */
export function egressPolicyOf(
  deps: { config: Pick<CoreConfig, "operatorEgress"> },
  base: SandboxEgressPolicy,
  input: SandboxNetworkInput | undefined,
  path: (string | number)[],
): SandboxEgressPolicy {
  if (!input) return base;
  const allowOut = input.allow_out?.map(parseEgressEntry) ?? base.allowOut;
  const issues: ErrorIssue[] = [];
  if (input.allow_out) {
    for (const [i, entry] of allowOut.entries()) {
      const why = checkWithinOperator(entry, deps.config.operatorEgress);
      if (why) {
        const message = `"${input.allow_out[i]}" is outside this server's egress policy: ${why}`;
        issues.push({ path: [...path, "allow_out", i], message, code: "egress_not_allowed" });
      }
    }
  }
  if (issues.length > 0) {
    throw new AppError("VALIDATION_FAILED", issues.map((issue) => issue.message).join("; "), {
      issues,
    });
  }
  return {
    allowInternet: input.allow_internet ?? base.allowInternet,
    allowOut: dedupe(allowOut),
    denyOut: dedupe(input.deny_out?.map(parseEgressEntry) ?? base.denyOut),
  };
}

/** The policy as the API shows it. */
export function toSandboxNetwork(policy: SandboxEgressPolicy): SandboxNetwork {
  return {
    allow_internet: policy.allowInternet,
    allow_out: policy.allowOut.map(formatEgressTarget),
    deny_out: policy.denyOut.map(formatEgressTarget),
  };
}

export function sameEgressPolicy(a: SandboxEgressPolicy, b: SandboxEgressPolicy): boolean {
  return JSON.stringify(toSandboxNetwork(a)) === JSON.stringify(toSandboxNetwork(b));
}

/** One entry per normalised spelling (`PyPI.org` and `pypi.org.` are one). */
function dedupe(targets: EgressTarget[]): EgressTarget[] {
  const seen = new Set<string>();
  return targets.filter((target) => {
    const key = formatEgressTarget(target);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
