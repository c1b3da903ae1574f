import { EgressEntryError, parseEgressEntry } from "@sandbox-server/egress";
import { z } from "zod";

/** At most this many entries in `allow_out` or in `deny_out`. */
export const MAX_EGRESS_ENTRIES = 256;

const EgressEntry = z
  .string()
  .min(1)
  .max(300)
  .superRefine((text, ctx) => {
    try {
      parseEgressEntry(text);
    } catch (error) {
      if (!(error instanceof EgressEntryError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
    }
  })
  .describe(
    "`pypi.org`, `*.github.com`, `10.0.0.0/8`, `2001:db8::/32` or an address, optionally with `:port` (IPv6 in brackets then: `[::1]:11434`)",
  );

const entries = (what: string) => z.array(EgressEntry).max(MAX_EGRESS_ENTRIES).describe(what);

/** What a create or a PATCH may set; each field present replaces, an absent one is kept. */
export const SandboxNetworkInput = z
  .object({
    allow_internet: z
      .boolean()
      .optional()
      .describe("Public (global unicast) destinations are allowed unless `deny_out` matches"),
    allow_out: entries(
      "Always allowed, over `deny_out` and `allow_internet: false`. A non-public address or network must lie inside the operator's SANDBOX_EGRESS_ALLOW; a name never opens a non-public address the operator did not",
    ).optional(),
    deny_out: entries("Refused unless `allow_out` matches").optional(),
  })
  .meta({ id: "SandboxNetworkInput" });
export type SandboxNetworkInput = z.infer<typeof SandboxNetworkInput>;

/** The egress policy in force, entries normalised (lower-case names, network addresses). */
export const SandboxNetwork = z
  .object({
    allow_internet: z.boolean(),
    allow_out: z.array(z.string()),
    deny_out: z.array(z.string()),
  })
  .meta({ id: "SandboxNetwork" });
export type SandboxNetwork = z.infer<typeof SandboxNetwork>;
