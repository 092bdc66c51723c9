import { quantile } from '#shared/domain/spans/views.ts';
import { withinRelativeError } from '../../unit/analytics/fixtures.ts';
import { type ExactAnswer, type ExactTotals, NO_TRACES } from './exact.ts';
import type { Endpoint, EndpointTiming, QueryRange, ScanTiming } from './measure.ts';

/** The API rounds latencies to the microsecond. */
const MICROSECOND_ROUNDING_MS = 0.0005;
/** The agentMetrics oracle rounds its average latency to a tenth of a millisecond. */
const ORACLE_AVERAGE_ROUNDING_MS = 0.05;
const PERCENTILES = { p50: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 } as const;

type Body = Record<string, any>;

/** Compares one endpoint answer with the exact one: counts and sums exactly, percentiles within 1%. */
export class Comparison {
  readonly mismatches: string[] = [];
  compared = 0;

  constructor(private readonly where: string) {}

  exact(what: string, actual: unknown, expected: unknown): void {
    this.record(actual === expected, what, actual, expected);
  }

  /** Dollars compared in whole nano-dollars, the grid costs are kept on. */
  cost(what: string, actualDollars: number, expectedNanos: number): void {
    this.record(Math.round(actualDollars * 1e9) === expectedNanos, what, actualDollars, expectedNanos / 1e9);
  }

  percentile(what: string, actual: number | null, exact: number | null): void {
    this.record(withinRelativeError(actual, exact, MICROSECOND_ROUNDING_MS), what, actual, exact);
  }

  near(what: string, actual: number | null, expected: number | null, tolerance: number): void {
    const close = actual === null || expected === null ? actual === expected : Math.abs(actual - expected) <= tolerance;
    this.record(close, what, actual, expected);
  }

  private record(ok: boolean, what: string, actual: unknown, expected: unknown): void {
    this.compared++;
    if (!ok) this.mismatches.push(`${this.where}: ${what} is ${String(actual)}, the scan says ${String(expected)}`);
  }
}

const averageMs = (t: ExactTotals) => (t.latenciesMs.length === 0 ? null : t.latenciesMs.reduce((a, b) => a + b, 0) / t.latenciesMs.length);

function outcomes(c: Comparison, what: string, body: Body, t: ExactTotals): void {
  c.exact(`${what} totalTraces`, body['totalTraces'], t.requestCount);
  c.exact(`${what} successCount`, body['successCount'], t.successCount);
  c.exact(`${what} errorCount`, body['errorCount'], t.errorCount);
  c.exact(`${what} successRate`, body['successRate'], t.metrics.successRate);
  c.exact(`${what} errorRate`, body['errorRate'], t.metrics.errorRate);
}

function tokens(c: Comparison, what: string, body: Body, t: Pick<ExactTotals, 'inputTokens' | 'outputTokens'>): void {
  c.exact(`${what} inputTokens`, body['inputTokens'], t.inputTokens);
  c.exact(`${what} outputTokens`, body['outputTokens'], t.outputTokens);
  c.exact(`${what} totalTokens`, body['totalTokens'], t.inputTokens + t.outputTokens);
}

function latency(c: Comparison, what: string, body: Body, t: ExactTotals): void {
  c.exact(`${what} count`, body['count'], t.latenciesMs.length);
  c.exact(`${what} minMs`, body['minMs'], t.latenciesMs[0] ?? null);
  c.exact(`${what} maxMs`, body['maxMs'], t.latenciesMs.at(-1) ?? null);
  c.near(`${what} avgMs`, body['avgMs'], averageMs(t), MICROSECOND_ROUNDING_MS);
  for (const [name, q] of Object.entries(PERCENTILES)) c.percentile(`${what} ${name}Ms`, body[`${name}Ms`], quantile(t.latenciesMs, q));
}

/** Every point of the series against the exact point, and every exact point present in the series. */
function series(c: Comparison, body: Body, exact: ExactAnswer, comparePoint: (what: string, point: Body, t: ExactTotals) => void): void {
  const points = body['series'] as Body[];
  const starts = new Set(points.map((p) => Date.parse(p['timestamp'])));
  for (const point of points) comparePoint(`point ${point['timestamp']}`, point, exact.byPoint.get(Date.parse(point['timestamp'])) ?? NO_TRACES);
  for (const start of exact.byPoint.keys()) if (!starts.has(start)) c.exact(`the point of ${new Date(start).toISOString()}`, 'missing', 'present');
}

/** Every row against its exact group (none: no traces), and a row for every exact group. */
function rows<K>(
  c: Comparison,
  what: string,
  list: Body[],
  exact: ReadonlyMap<K, ExactTotals>,
  keyOf: (row: Body) => K,
  compareRow: (what: string, row: Body, t: ExactTotals) => void,
): void {
  for (const row of list) compareRow(`${what} ${String(keyOf(row))}`, row, exact.get(keyOf(row)) ?? NO_TRACES);
  const keys = new Set(list.map(keyOf));
  for (const key of exact.keys()) if (!keys.has(key)) c.exact(`${what} row ${String(key)}`, 'missing', 'present');
}

function metrics(c: Comparison, body: Body, exact: ExactAnswer): void {
  const { overall } = exact;
  c.exact('totalTraces', body['totalTraces'], overall.requestCount);
  c.exact('successRate', body['successRate'], overall.metrics.successRate);
  c.exact('errorRate', body['errorRate'], overall.metrics.errorRate);
  tokens(c, 'overall', body, overall);
  c.cost('totalCost', body['totalCost'], overall.costNanos);
  c.near('avgLatencyMs', body['avgLatencyMs'], averageMs(overall), MICROSECOND_ROUNDING_MS);
  for (const name of ['p50', 'p95', 'p99'] as const)
    c.percentile(`${name}LatencyMs`, body[`${name}LatencyMs`], quantile(overall.latenciesMs, PERCENTILES[name]));
  c.exact('activeAgents', body['activeAgents'], exact.byAgent.size);
  rows(
    c,
    'byAgent',
    body['byAgent'],
    exact.byAgent,
    (row) => row['agentId'],
    (what, row, t) => {
      c.exact(`${what} requestCount`, row['requestCount'], t.metrics.requestCount);
      c.exact(`${what} successRate`, row['successRate'], t.metrics.successRate);
      c.exact(`${what} errorRate`, row['errorRate'], t.metrics.errorRate);
      c.exact(`${what} totalTokens`, row['totalTokens'], t.metrics.totalTokens);
      c.near(`${what} avgLatencyMs`, row['avgLatencyMs'], t.metrics.avgLatencyMs, ORACLE_AVERAGE_ROUNDING_MS + MICROSECOND_ROUNDING_MS);
      c.percentile(`${what} p95LatencyMs`, row['p95LatencyMs'], t.metrics.p95LatencyMs);
      c.cost(`${what} estimatedCost`, row['estimatedCost'], t.costNanos);
    },
  );
}

function costs(c: Comparison, body: Body, exact: ExactAnswer): void {
  const requestsAndCost = (what: string, row: Body, t: ExactTotals) => {
    c.exact(`${what} requestCount`, row['requestCount'], t.requestCount);
    c.cost(`${what} cost`, row['cost'], t.costNanos);
  };
  c.exact('currency', body['currency'], 'USD');
  c.cost('totalCost', body['totalCost'], exact.overall.costNanos);
  rows(c, 'byAgent', body['byAgent'], exact.byAgent, (row) => row['agentId'], requestsAndCost);
  rows(c, 'byModel', body['byModel'], exact.byModel, (row) => row['model'], requestsAndCost);
  series(c, body, exact, requestsAndCost);
}

function tokenUsage(c: Comparison, body: Body, exact: ExactAnswer): void {
  tokens(c, 'overall', body, exact.overall);
  rows(
    c,
    'byModel',
    body['byModel'],
    exact.byModel,
    (row) => row['model'],
    (what, row, t) => {
      c.exact(`${what} requestCount`, row['requestCount'], t.requestCount);
      tokens(c, what, row, t);
    },
  );
  series(c, body, exact, (what, point, t) => tokens(c, what, point, t));
}

/** Each endpoint's comparison, by the endpoint's key. */
const COMPARE: Record<Endpoint['key'], (c: Comparison, body: Body, exact: ExactAnswer) => void> = {
  metrics,
  successFailure: (c, body, exact) => {
    outcomes(c, 'overall', body, exact.overall);
    series(c, body, exact, (what, point, t) => outcomes(c, what, point, t));
  },
  requestsOverTime: (c, body, exact) => {
    c.exact('totalTraces', body['totalTraces'], exact.overall.requestCount);
    series(c, body, exact, (what, point, t) => c.exact(`${what} requestCount`, point['requestCount'], t.requestCount));
  },
  latencyPercentiles: (c, body, exact) => {
    latency(c, 'overall', body, exact.overall);
    series(c, body, exact, (what, point, t) => latency(c, what, point, t));
  },
  tokenUsage,
  costs,
};

export interface RangeResult {
  range: QueryRange;
  endpoints: EndpointTiming[];
  scan: ScanTiming;
  /** How many values of the endpoints' last answers were compared with the scan's. */
  compared: number;
  mismatches: string[];
}

/** Per range, its timings and how each endpoint's last answer compares with the scan's exact one. */
export function compareAnswers(endpoints: readonly EndpointTiming[], scans: readonly ScanTiming[]): RangeResult[] {
  return scans.map((scan) => {
    const timings = endpoints.filter((e) => e.range === scan.range);
    const comparisons = timings.map((timing) => {
      const comparison = new Comparison(`${timing.endpoint.name} over ${scan.range.label}`);
      COMPARE[timing.endpoint.key](comparison, timing.answer, scan.answer);
      return comparison;
    });
    return {
      range: scan.range,
      endpoints: timings,
      scan,
      compared: comparisons.reduce((sum, c) => sum + c.compared, 0),
      mismatches: comparisons.flatMap((c) => c.mismatches),
    };
  });
}
