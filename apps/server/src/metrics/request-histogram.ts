import type { Metric } from "prom-client";

interface Series {
  labels: { method: string; route: string; status: string };
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  counts: Float64Array;
  sum: number;
  count: number;
}

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * The request-duration histogram (method, route pattern, status). prom-client's `Histogram`
 * converts, validates and hashes its label object on every observation, which was ~2 % of
 * send-message's CPU; here a series is found by one string key and an observation is three
 * additions. Registered as a prom-client metric (`get()` gives the samples prom-client's own
 * histogram gives: cumulative `_bucket`s with `le`, then `+Inf`, `_sum` and `_count`), so
 * /metrics prints it the same way. Labels are bounded by the caller: route patterns, never paths.
 */
export class RequestHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labels: { method, route, status: String(status) },
        counts: new Float64Array(this.bounds.length + 1),
        sum: 0,
        count: 0,
      };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > (this.bounds[bucket] as number)) bucket++;
    series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** prom-client's metric interface: what `Registry.metrics()` prints. */
  get(): { name: string; help: string; type: "histogram"; aggregator: "sum"; values: Sample[] } {
    const values: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        values.push({
          labels: { le },
          sharedLabels: labels,
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push({
        labels: { le: "+Inf" },
        sharedLabels: labels,
        value: count,
        metricName: bucketName,
      });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
      values.push({
        labels: {},
        sharedLabels: labels,
        value: count,
        metricName: `${this.name}_count`,
      });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }

  reset(): void {
    this.series.clear();
  }

  /** For `registry.registerMetric`, whose type wants prom-client's own metric classes. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}
