import { Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { RequestHistogram } from "./request-histogram";

const NAME = "sandbox_server_http_request_duration_seconds";
const HELP = "HTTP requests";
const BUCKETS = [0.001, 0.01, 0.1, 1];

describe("RequestHistogram", () => {
  it("prints what prom-client's own Histogram prints for the same observations", async () => {
    const ours = new Registry();
    const fast = new RequestHistogram(NAME, HELP, BUCKETS);
    ours.registerMetric(fast.asMetric());
    const theirs = new Registry();
    const reference = new Histogram({
      name: NAME,
      help: HELP,
      labelNames: ["method", "route", "status"] as const,
      buckets: BUCKETS,
      registers: [theirs],
    });
    const observations: [string, string, number, number][] = [
      ["GET", "/health", 200, 0.0004],
      ["GET", "/health", 200, 0.001], // on a bound: counted in that bucket
      ["POST", "/api/v1/sandboxes", 201, 0.05],
      ["POST", "/api/v1/sandboxes", 201, 3], // above every bound: +Inf only
      ["GET", "/api/v1/sandboxes/{id}", 404, 0.002],
      ["GET", "/health", 200, 0.2],
    ];
    for (const [method, route, status, seconds] of observations) {
      fast.observe(method, route, status, seconds);
      reference.observe({ method, route, status }, seconds);
    }
    const printed = await ours.metrics();
    expect(printed).toContain(
      `${NAME}_bucket{le="0.001",method="GET",route="/health",status="200"} 2`,
    );
    expect(printed).toBe(await theirs.metrics());

    fast.reset();
    reference.reset();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
