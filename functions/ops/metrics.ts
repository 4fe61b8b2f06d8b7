// Prometheus metrics in the text exposition format (version 0.0.4), with no Node-only
// dependency so the Worker and Lambda serve the same /metrics. Counters and histograms only:
// what an operator alerts on (request rates and errors by route, latency, compile and publish
// durations, store errors). One Metrics per app, created by createApp.

/** Seconds: from a cached 304 (sub-millisecond) to an L-sized publish (tens of seconds). */
const BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

type Labels = Readonly<Record<string, string>>;

const labelText = (labels: Labels): string => {
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '';
  // Label values are escaped as the format says: backslash, double quote and newline.
  return `{${keys.map((k) => `${k}="${labels[k]!.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`).join(',')}}`;
};

class Counter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`, ...[...this.values].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${this.name}${k} ${v}`)];
  }
}

class Histogram {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  observe(seconds: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) s.counts[i]!++;
    s.sum += seconds;
    s.count++;
  }

  render(): string[] {
    const out = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [, s] of [...this.series].sort(([a], [b]) => (a < b ? -1 : 1))) {
      BUCKETS.forEach((le, i) => out.push(`${this.name}_bucket${labelText({ ...s.labels, le: String(le) })} ${s.counts[i]}`));
      out.push(`${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${s.sum}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

/** A value read when /metrics is scraped, from whatever holds it (the Node server's compute threads). */
class Gauge {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => number,
  ) {}

  render(): string[] {
    return [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`, `${this.name} ${this.read()}`];
  }
}

export class Metrics {
  readonly requests = new Counter('netpolc_http_requests_total', 'HTTP requests by route pattern, method and status.');
  readonly latency = new Histogram('netpolc_http_request_duration_seconds', 'HTTP request latency by route pattern and method.');
  readonly compile = new Histogram('netpolc_compile_duration_seconds', 'Compiling a snapshot, by form (ir: the set form; ir-flat: flat tables).');
  readonly publish = new Histogram('netpolc_publish_duration_seconds', 'Publishing a version to the store (compile included), by outcome.');
  readonly storeErrors = new Counter('netpolc_store_errors_total', 'Store operations that failed, by error kind.');
  private readonly gauges: Gauge[] = [];

  /** Adds a gauge read at every scrape. */
  gauge(name: string, help: string, read: () => number): void {
    this.gauges.push(new Gauge(name, help, read));
  }

  render(): string {
    return [...this.requests.render(), ...this.latency.render(), ...this.compile.render(), ...this.publish.render(), ...this.storeErrors.render(), ...this.gauges.flatMap((g) => g.render())].join('\n') + '\n';
  }
}
