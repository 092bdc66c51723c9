import type { Figure } from '../scenario.ts';
import { median, percentile, round } from '../stats.ts';
import { type Endpoint, type EndpointTiming, PAGE_LIMIT } from './endpoints.ts';
import type { TenantFacts } from './tenant.ts';

/** The issue's targets. */
export const TARGETS = { p95Ratio: 1.5, firstPageP95Ms: 50, readsPerLimit: 3 } as const;

export interface SizeRun {
  facts: TenantFacts;
  timings: EndpointTiming[];
}

export interface ReadsRun {
  small: SizeRun;
  large: SizeRun;
}

interface Row {
  key: string;
  label: string;
  kind: Endpoint['kind'];
  small: Summary;
  large: Summary;
  ratio: number;
  misses: string[];
}

interface Summary {
  p50: number;
  p95: number;
  /** Medians over the measured requests. */
  pageReads: number;
  counted: number;
  rollups: number;
  total: number;
  totalExact: boolean;
  items: number;
}

const summaryOf = (t: EndpointTiming): Summary => ({
  p50: round(median(t.latenciesMs), 1),
  p95: round(percentile(t.latenciesMs, 0.95), 1),
  pageReads: median(t.reads.map((r) => r.page)),
  counted: median(t.reads.map((r) => r.counted)),
  rollups: median(t.reads.map((r) => r.rollups)),
  total: t.pagination.total,
  totalExact: t.pagination.totalExact,
  items: t.items,
});

/** A tenant's size as the tables name it: 1k, 20k, 1M. */
export const sizeName = (traces: number): string =>
  traces >= 1_000_000 ? `${round(traces / 1_000_000, 1)}M` : traces >= 1_000 ? `${round(traces / 1_000, 1)}k` : String(traces);

const sizeNames = (run: ReadsRun) => ({ small: sizeName(run.small.facts.traces), large: sizeName(run.large.facts.traces) });

export function rowsOf(run: ReadsRun): Row[] {
  const names = sizeNames(run);
  return run.small.timings.map((small, i) => {
    const large = run.large.timings[i]!;
    const s = summaryOf(small);
    const l = summaryOf(large);
    const ratio = round(l.p95 / s.p95, 2);
    const misses: string[] = [];
    if (ratio > TARGETS.p95Ratio) misses.push(`p95 ${ratio}× the ${names.small} p95`);
    if (l.p95 > TARGETS.firstPageP95Ms) misses.push(`p95 ${l.p95} ms > ${TARGETS.firstPageP95Ms} ms`);
    if (small.endpoint.kind === 'key' && l.pageReads > TARGETS.readsPerLimit * PAGE_LIMIT)
      misses.push(`${l.pageReads} items read > ${TARGETS.readsPerLimit} × limit`);
    return { key: small.endpoint.key, label: small.endpoint.label, kind: small.endpoint.kind, small: s, large: l, ratio, misses };
  });
}

export function figures(run: ReadsRun): Figure[] {
  const rows = rowsOf(run);
  const names = sizeNames(run);
  const sizeFigures = (size: 'small' | 'large', label: string): Figure[] => [
    { key: `${size}Traces`, label: `${label}: traces seeded (30 days, ${run[size].facts.tracesOfAgent.size} agents)`, value: run[size].facts.traces },
    { key: `${size}Sessions`, label: `${label}: sessions`, value: run[size].facts.sessions },
    { key: `${size}Items`, label: `${label}: items written`, value: run[size].facts.items },
    { key: `${size}SeedSeconds`, label: `${label}: seeding, wall clock`, value: round(run[size].facts.seedSeconds, 1), unit: 's' },
  ];
  return [
    ...sizeFigures('small', names.small),
    ...sizeFigures('large', names.large),
    ...rows.flatMap((r): Figure[] => [
      { key: `${r.key}P95Small`, label: `${r.label}: p50 / p95 at ${names.small}`, value: { min: r.small.p50, max: r.small.p95 }, unit: 'ms' },
      { key: `${r.key}P95Large`, label: `${r.label}: p50 / p95 at ${names.large}`, value: { min: r.large.p50, max: r.large.p95 }, unit: 'ms' },
      {
        key: `${r.key}Reads`,
        label: `${r.label}: items read ${names.small} / ${names.large} (page)`,
        value: { min: r.small.pageReads, max: r.large.pageReads },
      },
    ]),
    {
      key: 'targetsMet',
      label: `endpoints meeting every target (p95 ≤ ${TARGETS.p95Ratio}× ${names.small}, ≤ ${TARGETS.firstPageP95Ms} ms, keyed reads ≤ ${TARGETS.readsPerLimit} × limit)`,
      value: rows.filter((r) => r.misses.length === 0).length,
    },
    { key: 'endpoints', label: 'endpoints measured', value: rows.length },
  ];
}

const cell = (s: Summary) => `${s.p50} / ${s.p95}`;
const reads = (s: Summary) => `${s.pageReads}${s.counted ? ` + ${s.counted} counted` : ''}${s.rollups ? ` + ${s.rollups} buckets` : ''}`;
const total = (s: Summary) => `${s.total.toLocaleString('en-US')}${s.totalExact ? '' : '+'}`;

/** The scenario's figures for docs/benchmarks.md: one row per list at both sizes, then why the misses miss. */
export function readsTable(run: ReadsRun, parameters: Record<string, number>, why: ReadonlyMap<string, string>): string {
  const rows = rowsOf(run);
  const { small, large } = sizeNames(run);
  return [
    'The local service in one process over HTTP, on dynalite. ' +
      `One tenant seeded with ${run.small.facts.traces.toLocaleString('en-US')} traces, then another with ${run.large.facts.traces.toLocaleString('en-US')}, in the same table and run ` +
      `(30 days, ${parameters['agents']} agents, sessions of 1–20 traces, 5% errors; seeding ${round(run.small.facts.seedSeconds)} s and ${round(run.large.facts.seedSeconds)} s). ` +
      `Each endpoint ${parameters['repetitions']} times after ${parameters['warmup-rounds']} warm-up rounds, limit ${PAGE_LIMIT}, one request at a time. ` +
      'Latency in ms (p50 / p95). Items read per request (median): what the list reads evaluated, plus what bounded counts evaluated and the rollup buckets exact totals read. ' +
      'Total: `+` marks `totalExact: false` (a lower bound).',
    '',
    `| list | read by | ${small} p50 / p95 | ${large} p50 / p95 | p95 ${large} ÷ ${small} | items read ${small} | items read ${large} | total at ${large} | targets |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.kind} | ${cell(r.small)} | ${cell(r.large)} | ${r.ratio} | ${reads(r.small)} | ${reads(r.large)} | ${total(r.large)} | ${r.misses.length === 0 ? 'met' : `**missed**: ${r.misses.join('; ')}`} |`,
    ),
    '',
    `Targets: p95 at ${large} within ${TARGETS.p95Ratio}× the p95 at ${small}; p95 ≤ ${TARGETS.firstPageP95Ms} ms; lists read through key conditions only ("key") read at most ${TARGETS.readsPerLimit} × limit items. ` +
      'Read by: "key" key conditions only; "filter" a filter read within a budget; "skip" the items skipped are read; "floor" no list, what any request costs on this machine at the time (authentication, rate limit, one item).',
    ...(why.size > 0 ? ['', 'Why the misses:', '', ...[...why].map(([label, reason]) => `- ${label}: ${reason}`)] : []),
  ].join('\n');
}
