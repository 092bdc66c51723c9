import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figure } from '../scenario.ts';
import { median, percentile, round } from '../stats.ts';
import { PAGE_LIMIT, type Endpoint, type EndpointTiming } from './endpoints.ts';
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

export function rowsOf(run: ReadsRun): Row[] {
  return run.small.timings.map((small, i) => {
    const large = run.large.timings[i]!;
    const s = summaryOf(small);
    const l = summaryOf(large);
    const ratio = round(l.p95 / s.p95, 2);
    const misses: string[] = [];
    if (ratio > TARGETS.p95Ratio) misses.push(`p95 ${ratio}× the 1k p95`);
    if (l.p95 > TARGETS.firstPageP95Ms) misses.push(`p95 ${l.p95} ms > ${TARGETS.firstPageP95Ms} ms`);
    if (small.endpoint.kind === 'key' && l.pageReads > TARGETS.readsPerLimit * PAGE_LIMIT) misses.push(`${l.pageReads} items read > ${TARGETS.readsPerLimit} × limit`);
    return { key: small.endpoint.key, label: small.endpoint.label, kind: small.endpoint.kind, small: s, large: l, ratio, misses };
  });
}

export function figures(run: ReadsRun): Figure[] {
  const rows = rowsOf(run);
  const sizeFigures = (size: 'small' | 'large', label: string): Figure[] => [
    { key: `${size}Traces`, label: `${label}: traces seeded (30 days, ${run[size].facts.tracesOfAgent.size} agents)`, value: run[size].facts.traces },
    { key: `${size}Sessions`, label: `${label}: sessions`, value: run[size].facts.sessions },
    { key: `${size}Items`, label: `${label}: items written`, value: run[size].facts.items },
    { key: `${size}SeedSeconds`, label: `${label}: seeding, wall clock`, value: round(run[size].facts.seedSeconds, 1), unit: 's' },
  ];
  return [
    ...sizeFigures('small', '1k'),
    ...sizeFigures('large', '1M'),
    ...rows.flatMap((r): Figure[] => [
      { key: `${r.key}P95Small`, label: `${r.label}: p50 / p95 at 1k`, value: { min: r.small.p50, max: r.small.p95 }, unit: 'ms' },
      { key: `${r.key}P95Large`, label: `${r.label}: p50 / p95 at 1M`, value: { min: r.large.p50, max: r.large.p95 }, unit: 'ms' },
      { key: `${r.key}Reads`, label: `${r.label}: items read 1k / 1M (page)`, value: { min: r.small.pageReads, max: r.large.pageReads } },
    ]),
    { key: 'targetsMet', label: `endpoints meeting every target (p95 ≤ ${TARGETS.p95Ratio}× 1k, ≤ ${TARGETS.firstPageP95Ms} ms, keyed reads ≤ ${TARGETS.readsPerLimit} × limit)`, value: rows.filter((r) => r.misses.length === 0).length },
    { key: 'endpoints', label: 'endpoints measured', value: rows.length },
  ];
}

const BENCHMARKS_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'benchmarks.md');
const START = '<!-- reads:start (written by `npm run bench -- --scenario reads`; do not edit by hand) -->';
const END = '<!-- reads:end -->';

const cell = (s: Summary) => `${s.p50} / ${s.p95}`;
const reads = (s: Summary) => `${s.pageReads}${s.counted ? ` + ${s.counted} counted` : ''}${s.rollups ? ` + ${s.rollups} buckets` : ''}`;
const total = (s: Summary) => `${s.total.toLocaleString('en-US')}${s.totalExact ? '' : '+'}`;

/** The scenario's section of docs/benchmarks.md, replaced in place (the file and the section are made when missing). */
export async function writeBenchmarksSection(run: ReadsRun, parameters: Record<string, number>, why: ReadonlyMap<string, string>): Promise<string> {
  const rows = rowsOf(run);
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}, ${process.platform}-${process.arch}`;
  const lines = [
    START,
    `## Reads: every list at 1,000 and at 1,000,000 traces (\`--scenario reads\`)`,
    '',
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}; the local service in one process over HTTP, dynalite on disk (LevelDB). ` +
      `One tenant seeded with ${run.small.facts.traces.toLocaleString('en-US')} traces, then another with ${run.large.facts.traces.toLocaleString('en-US')}, in the same table and run ` +
      `(30 days, ${parameters['agents']} agents, sessions of 1–20 traces, 5% errors; seeding ${round(run.small.facts.seedSeconds)} s and ${round(run.large.facts.seedSeconds)} s). ` +
      `Each endpoint ${parameters['repetitions']} times after ${parameters['warmup-rounds']} warm-up rounds, limit ${PAGE_LIMIT}, one request at a time. ` +
      'Latency in ms (p50 / p95). Items read per request (median): what the list reads evaluated, plus what bounded counts evaluated and the rollup buckets exact totals read. ' +
      'Total: `+` marks `totalExact: false` (a lower bound).',
    '',
    '| list | read by | 1k p50 / p95 | 1M p50 / p95 | p95 1M ÷ 1k | items read 1k | items read 1M | total at 1M | targets |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.kind} | ${cell(r.small)} | ${cell(r.large)} | ${r.ratio} | ${reads(r.small)} | ${reads(r.large)} | ${total(r.large)} | ${r.misses.length === 0 ? 'met' : `**missed**: ${r.misses.join('; ')}`} |`,
    ),
    '',
    `Targets: p95 at 1M within ${TARGETS.p95Ratio}× the p95 at 1k; p95 ≤ ${TARGETS.firstPageP95Ms} ms; lists read through key conditions only ("key") read at most ${TARGETS.readsPerLimit} × limit items. ` +
      'Read by: "key" key conditions only; "filter" a filter read within a budget; "skip" the items skipped are read; "floor" no list, what any request costs on this machine at the time (authentication, rate limit, one item).',
    ...(why.size > 0 ? ['', 'Why the misses:', '', ...[...why].map(([label, reason]) => `- ${label}: ${reason}`)] : []),
    END,
  ];
  const section = lines.join('\n');
  let text: string;
  try {
    text = await readFile(BENCHMARKS_FILE, 'utf8');
  } catch {
    text = '# Benchmarks\n\nFigures written by `npm run bench`; each section says when and where it was measured.\n';
  }
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const next = start >= 0 && end > start ? `${text.slice(0, start)}${section}${text.slice(end + END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  await mkdir(dirname(BENCHMARKS_FILE), { recursive: true });
  await writeFile(BENCHMARKS_FILE, next);
  return BENCHMARKS_FILE;
}
