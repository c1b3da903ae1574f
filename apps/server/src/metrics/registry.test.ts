import { expect, it } from "vitest";
import { createServerMetrics } from "./registry";

it("counts egress denials per sandbox and drops a deleted sandbox's series", async () => {
  const metrics = createServerMetrics();
  metrics.core.egressDenied("sb_a");
  metrics.core.egressDenied("sb_a");
  metrics.core.egressDenied("sb_b");
  const text = await metrics.registry.metrics();
  expect(text).toContain('sandbox_server_sandbox_egress_denied_total{sandbox_id="sb_a"} 2');
  expect(text).toContain('sandbox_server_sandbox_egress_denied_total{sandbox_id="sb_b"} 1');
  metrics.core.sandboxDeleted("sb_a");
  const after = await metrics.registry.metrics();
  expect(after).not.toContain('sandbox_id="sb_a"');
  expect(after).toContain('sandbox_server_sandbox_egress_denied_total{sandbox_id="sb_b"} 1');
});
