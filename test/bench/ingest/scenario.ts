import { PLANS } from '#shared/domain/plans/plans.ts';
import { MAX_SPANS_PER_REQUEST } from '#shared/schemas/spans.ts';
import { SPAN_GROUP_PREFIX } from '#shared/store/keys.ts';
import { type Figure, type Range, type Scenario, type ScenarioResult, UsageError } from '../scenario.ts';
import { type Elapsed, median, percentile, round } from '../stats.ts';
import { type RawRound, startRawBaseline } from './raw-dynalite.ts';
import { BENCH_PLAN, type RoundMeasure, startIngestTarget } from './service-run.ts';
import { type SpanBatch, seededRandom, spanBatches } from './traces.ts';
import type { Verification } from './verify.ts';

const SEED = 20_260_301;

interface IngestParameters {
  requests: number;
  rounds: number;
  concurrency: number;
  spansPerRequest: number;
  warmupRequests: number;
  rawWriters: number;
  verifySample: number;
  anomalyRate: number;
}

export const ingestScenario: Scenario = {
  name: 'ingest',
  summary:
    'native spans over HTTP (POST /api/spans → 202 → ingest queue → worker → dynalite) end to end, against raw dynalite BatchWriteItem of what they wrote: their span groups alone, and every item',
  flags: {
    requests: { default: 200, description: 'measured POST /api/spans requests, split evenly into the rounds' },
    rounds: { default: 5, description: 'measured rounds; each is sent, then persisted, before the next (figures are their median)' },
    concurrency: { default: 8, description: 'clients with a request in flight' },
    'spans-per-request': { default: 100, max: MAX_SPANS_PER_REQUEST, description: 'spans per request, as whole traces of 4–6 spans' },
    'warmup-requests': { default: 30, min: 0, description: 'requests sent and persisted before measuring (not measured)' },
    'raw-writers': { default: 10, description: 'BatchWriteItem calls in flight in the raw dynalite baseline' },
    'verify-sample': { default: 50, min: 0, description: 'traces read back span by span after the run' },
    'anomaly-percent': { default: 2, min: 0, max: 100, description: 'traces that are slow (over the 5 s alert threshold) or have a failing tool' },
  },
  run: (flags, progress) =>
    runIngest(
      {
        requests: flags['requests']!,
        rounds: flags['rounds']!,
        concurrency: flags['concurrency']!,
        spansPerRequest: flags['spans-per-request']!,
        warmupRequests: flags['warmup-requests']!,
        rawWriters: flags['raw-writers']!,
        verifySample: flags['verify-sample']!,
        anomalyRate: flags['anomaly-percent']! / 100,
      },
      flags,
      progress,
    ),
};

interface IngestRun {
  rounds: RoundMeasure[];
  /** Each round's span group items, written raw. */
  rawSpanGroups: RawRound[];
  /** Every item each round added or changed, written raw. */
  rawEveryItem: RawRound[];
  verification: Verification;
}

async function runIngest(p: IngestParameters, flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  if (p.rounds > p.requests) throw new UsageError(`--rounds ${p.rounds} is more than --requests ${p.requests}`);
  const quota = PLANS[BENCH_PLAN].features.spans;
  if ((p.requests + p.warmupRequests + 1) * p.spansPerRequest > quota)
    throw new UsageError(`the run would send more than the ${BENCH_PLAN} plan's ${quota} spans`);
  const random = seededRandom(SEED);
  // One request more than asked when there is no warm-up: the raw baseline warms up on what it stored.
  const warmup = spanBatches(random, Math.max(1, p.warmupRequests), p.spansPerRequest, Date.now(), p.anomalyRate);
  const rounds = splitEvenly(p.requests, p.rounds).map((requests) => spanBatches(random, requests, p.spansPerRequest, Date.now(), p.anomalyRate));
  const run = await measure(p, warmup, rounds, progress);
  return { parameters: flags, figures: figures(p, run), failures: mismatchFailures(run.verification.mismatches) };
}

const spanGroupsOf = (items: readonly Record<string, unknown>[]) => items.filter((item) => String(item['SK']).startsWith(SPAN_GROUP_PREFIX));

/**
 * Warms up the service and the raw baseline, then measures them in turns: a service round, then what
 * it wrote, written raw twice (its span group items alone, and every item it added or changed), the
 * two in alternating order, so that all see the same conditions on a machine that other programs share.
 */
async function measure(p: IngestParameters, warmup: SpanBatch[], rounds: SpanBatch[][], progress: (line: string) => void): Promise<IngestRun> {
  const target = await startIngestTarget(p.concurrency);
  try {
    progress(`warm-up: ${warmup.length} requests, then what they wrote straight into dynalite`);
    const warm = await target.sendAndPersist('warm-up', warmup);
    const raw = await startRawBaseline(target.tenantId, p.rawWriters);
    const measured: Pick<IngestRun, 'rounds' | 'rawSpanGroups' | 'rawEveryItem'> = { rounds: [], rawSpanGroups: [], rawEveryItem: [] };
    try {
      await raw.write(spanGroupsOf(warm.written), warm.spans);
      await raw.write(warm.written, warm.spans);
      for (const [i, batches] of rounds.entries()) {
        progress(`round ${i + 1} of ${rounds.length}: ${batches.length} requests from ${p.concurrency} clients, then what they wrote as raw items`);
        const round = await target.sendAndPersist(`round ${i + 1}`, batches);
        measured.rounds.push(round);
        const spanGroups = () => raw.write(spanGroupsOf(round.written), round.spans);
        const everyItem = () => raw.write(round.written, round.spans);
        if (i % 2 === 0) {
          measured.rawSpanGroups.push(await spanGroups());
          measured.rawEveryItem.push(await everyItem());
        } else {
          measured.rawEveryItem.push(await everyItem());
          measured.rawSpanGroups.push(await spanGroups());
        }
      }
    } finally {
      await raw.stop();
    }
    progress('verifying that every accepted span was stored');
    const verification = await target.verify(p.verifySample);
    return { ...measured, verification };
  } finally {
    await target.stop();
  }
}

const SHOWN_MISMATCHES = 10;

function mismatchFailures(mismatches: string[]): string[] {
  const more = mismatches.length - SHOWN_MISMATCHES;
  return [...mismatches.slice(0, SHOWN_MISMATCHES), ...(more > 0 ? [`… and ${more} more`] : [])];
}

/** `total` split into `parts` whole numbers differing by at most one. */
const splitEvenly = (total: number, parts: number): number[] =>
  Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));

const perSecond = (count: number, e: Elapsed) => count / e.seconds;
const cpuMsPerThousand = (count: number, e: Elapsed) => (e.cpuSeconds * 1000 * 1000) / count;
const range = (values: number[]): Range => ({ min: Math.round(Math.min(...values)), max: Math.round(Math.max(...values)) });

function figures(p: IngestParameters, { rounds, rawSpanGroups: raw, rawEveryItem, verification: v }: IngestRun): Figure[] {
  const latencies = rounds.flatMap((r) => r.outcomes.map((o) => o.latencyMs));
  const endToEnd = rounds.map((r) => perSecond(r.spans, r.persisted));
  const endToEndCpu = median(rounds.map((r) => cpuMsPerThousand(r.spans, r.persisted)));
  const rawRate = raw.map((r) => perSecond(r.spans, r.elapsed));
  const rawCpu = median(raw.map((r) => cpuMsPerThousand(r.spans, r.elapsed)));
  const everyItemRate = rawEveryItem.map((r) => perSecond(r.spans, r.elapsed));
  const itemsPerThousandSpans = median(rawEveryItem.map((r) => (r.items * 1000) / r.spans));
  return [
    { key: 'spansSent', label: 'spans sent (measured)', value: rounds.reduce((sum, r) => sum + r.spans, 0) },
    { key: 'requests', label: 'requests (measured)', value: latencies.length },
    { key: 'rounds', label: 'rounds', value: rounds.length },
    { key: 'spansPerRequest', label: 'spans per request', value: p.spansPerRequest },
    { key: 'concurrency', label: 'concurrent clients', value: p.concurrency },
    { key: 'warmupRequests', label: 'warm-up requests (not measured)', value: p.warmupRequests },
    { key: 'ingestP50Ms', label: 'ingest latency p50 (until the 202)', value: round(percentile(latencies, 0.5), 1), unit: 'ms' },
    { key: 'ingestP99Ms', label: 'ingest latency p99 (until the 202)', value: round(percentile(latencies, 0.99), 1), unit: 'ms' },
    {
      key: 'acceptedSpansPerSecond',
      label: 'accept rate (first request → last 202)',
      value: Math.round(median(rounds.map((r) => perSecond(r.spans, r.accepted)))),
      unit: 'spans/s',
    },
    {
      key: 'persistTailSeconds',
      label: 'last 202 → every span persisted',
      value: round(median(rounds.map((r) => r.persisted.seconds - r.accepted.seconds)), 2),
      unit: 's',
    },
    { key: 'endToEndSpansPerSecond', label: 'end-to-end throughput (median round)', value: Math.round(median(endToEnd)), unit: 'spans/s' },
    { key: 'endToEndSpansPerSecondRange', label: 'end-to-end throughput, slowest–fastest round', value: range(endToEnd), unit: 'spans/s' },
    { key: 'endToEndCpuMsPer1000Spans', label: 'end-to-end CPU time per 1,000 spans', value: Math.round(endToEndCpu), unit: 'ms' },
    {
      key: 'rawDynaliteSpansPerSecond',
      label: `raw dynalite BatchWriteItem of span group items, ${p.rawWriters} in flight (median)`,
      value: Math.round(median(rawRate)),
      unit: 'spans/s',
    },
    { key: 'rawDynaliteSpansPerSecondRange', label: 'raw dynalite, slowest–fastest round', value: range(rawRate), unit: 'spans/s' },
    { key: 'rawDynaliteCpuMsPer1000Spans', label: 'raw dynalite CPU time per 1,000 spans', value: Math.round(rawCpu), unit: 'ms' },
    {
      key: 'endToEndToRawRatio',
      label: 'end-to-end / raw span groups (median of rounds)',
      value: round(median(endToEnd.map((rate, i) => rate / rawRate[i]!)), 3),
    },
    { key: 'endToEndToRawCpuRatio', label: 'raw CPU per item / end-to-end CPU per span', value: round(rawCpu / endToEndCpu, 3) },
    {
      key: 'writtenItemsPer1000Spans',
      label: 'items a round added or changed per 1,000 spans (median of rounds)',
      value: Math.round(itemsPerThousandSpans),
    },
    {
      key: 'rawEveryItemSpansPerSecond',
      label: `raw dynalite BatchWriteItem of every item a round added or changed, ${p.rawWriters} in flight (median)`,
      value: Math.round(median(everyItemRate)),
      unit: 'spans/s',
    },
    { key: 'rawEveryItemSpansPerSecondRange', label: 'raw every item, slowest–fastest round', value: range(everyItemRate), unit: 'spans/s' },
    {
      key: 'rawEveryItemToRawRatio',
      label: 'raw every item / raw span groups (median of rounds)',
      value: round(median(everyItemRate.map((rate, i) => rate / rawRate[i]!)), 3),
    },
    {
      key: 'endToEndToRawEveryItemRatio',
      label: 'end-to-end / raw every item (median of rounds)',
      value: round(median(endToEnd.map((rate, i) => rate / everyItemRate[i]!)), 3),
    },
    { key: 'tracesAccepted', label: 'traces accepted (incl. warm-up)', value: v.expectedTraces },
    { key: 'tracesListed', label: 'traces counted by GET /spans/traces', value: v.listedTraces },
    { key: 'spansAccepted', label: 'spans accepted (incl. warm-up)', value: v.expectedSpans },
    { key: 'spansStored', label: "spans stored (sum of the traces' spanCount)", value: v.storedSpans },
    { key: 'tracesReadBackInFull', label: 'traces read back span by span', value: v.sampledTraces },
    { key: 'everyAcceptedSpanStored', label: 'every accepted span stored', value: v.mismatches.length === 0 },
  ];
}
