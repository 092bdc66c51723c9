import { PLANS } from '#shared/domain/plans/plans.ts';
import { MAX_SPANS_PER_REQUEST } from '#shared/schemas/spans.ts';
import type { Verification } from '../ingest/verify.ts';
import { type Figure, type Scenario, type ScenarioResult, UsageError } from '../scenario.ts';
import { median, percentile, round } from '../stats.ts';
import type { StreamStats } from './cannon.ts';
import { type IngestOutcome, runIngest } from './ingest-stream.ts';
import { type ReadOutcome, runReads } from './read-stream.ts';
import { startTarget, type Target, type Verified } from './target-process.ts';
import { runThrottled, type ThrottleOutcome } from './throttle.ts';

const PLAN = 'pro';
const SEED = 20_260_302;
/** Nothing in the main phase should ever be throttled. */
const HIGH_LIMITS = { standard: 1_000_000, ingestion: 1_000_000, strict: 1_000, auth: 1_000 };
const THROTTLE_CONNECTIONS = 4;
const THROTTLE_SPANS_PER_REQUEST = 10;
/** Requests of the 429 phase per unit of its limit: most of them must be refused. */
const THROTTLE_OVERSHOOT = 4;
const SHOWN_PROBLEMS = 5;

interface LoadParameters {
  seconds: number;
  ingestRate: number;
  ingestConnections: number;
  spansPerRequest: number;
  readRate: number;
  readConnections: number;
  seedRequests: number;
  anomalyRate: number;
  verifySample: number;
  drainSeconds: number;
  throttleLimit: number;
}

export const loadScenario: Scenario = {
  name: 'load',
  summary:
    'autocannon over loopback against the local service (in a child process): sustained POST /api/spans and dashboard reads at once, then a phase over a low ingestion limit (429s only), every accepted span verified stored',
  flags: {
    seconds: { default: 60, max: 3600, description: 'length of the main phase (ingestion ends by count: rate × seconds requests)' },
    'ingest-rate': { default: 3, description: 'POST /api/spans requests per second' },
    'ingest-connections': { default: 3, description: 'connections sending spans' },
    'spans-per-request': { default: 100, max: MAX_SPANS_PER_REQUEST, description: 'spans per request, as whole traces of 4–6 spans' },
    'read-rate': { default: 20, description: 'dashboard GET requests per second, over 10 routes in turn' },
    'read-connections': { default: 4, description: 'connections reading' },
    'seed-requests': { default: 20, min: 1, description: 'requests stored before the load, so that the reads have data' },
    'anomaly-percent': { default: 2, min: 0, max: 100, description: 'traces that are slow (over the 5 s alert threshold) or have a failing tool' },
    'verify-sample': { default: 50, min: 0, description: 'traces read back span by span after the run' },
    'drain-seconds': { default: 600, description: 'longest wait, after the load, for the queues to empty' },
    'throttle-limit': { default: 20, min: 2, max: 500, description: 'ingestion limit per minute of the 429 phase' },
  },
  run: (flags, progress) =>
    runLoad(
      {
        seconds: flags['seconds']!,
        ingestRate: flags['ingest-rate']!,
        ingestConnections: flags['ingest-connections']!,
        spansPerRequest: flags['spans-per-request']!,
        readRate: flags['read-rate']!,
        readConnections: flags['read-connections']!,
        seedRequests: flags['seed-requests']!,
        anomalyRate: flags['anomaly-percent']! / 100,
        verifySample: flags['verify-sample']!,
        drainSeconds: flags['drain-seconds']!,
        throttleLimit: flags['throttle-limit']!,
      },
      flags,
      progress,
    ),
};

interface MainPhase {
  ingest: IngestOutcome;
  reads: ReadOutcome;
  verified: Verified;
}

interface ThrottlePhase {
  throttled: ThrottleOutcome;
  verified: Verified;
}

async function runLoad(p: LoadParameters, flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  const quota = PLANS[PLAN].features.spans;
  if ((p.seedRequests + p.ingestRate * p.seconds) * p.spansPerRequest > quota)
    throw new UsageError(`the run would send more than the ${PLAN} plan's ${quota} spans`);
  const main = await mainPhase(p, progress);
  const throttle = await throttlePhase(p, progress);
  return {
    parameters: flags,
    figures: [...mainFigures(p, main), ...throttleFigures(p, throttle)],
    failures: [...mainFailures(main), ...throttleFailures(throttle)],
  };
}

/** Starts a target, runs `phase` against it and always stops it. */
async function withTarget<T>(target: Promise<Target>, phase: (target: Target) => Promise<T>): Promise<T> {
  const started = await target;
  try {
    return await phase(started);
  } finally {
    await started.stop();
  }
}

function mainPhase(p: LoadParameters, progress: (line: string) => void): Promise<MainPhase> {
  progress(`starting the service in a child process and storing ${p.seedRequests} requests of ${p.spansPerRequest} spans for the reads`);
  const seed = { requests: p.seedRequests, spansPerRequest: p.spansPerRequest, anomalyRate: p.anomalyRate, seed: SEED };
  return withTarget(startTarget({ rateLimits: HIGH_LIMITS, plan: PLAN, seed }), async (target) => {
    progress(
      `${p.seconds} s: ${p.ingestRate} POST /api/spans per second (${p.ingestRate * p.spansPerRequest} spans/s) and ${p.readRate} dashboard reads per second`,
    );
    const [ingest, reads] = await Promise.all([
      runIngest(target.ready, {
        seconds: p.seconds,
        rate: p.ingestRate,
        connections: p.ingestConnections,
        spansPerRequest: p.spansPerRequest,
        anomalyRate: p.anomalyRate,
        seed: SEED + 1,
      }),
      runReads(target.ready, { seconds: p.seconds, rate: p.readRate, connections: p.readConnections }),
    ]);
    progress(`waiting for the queues to empty, then reading back ${ingest.accepted.length + target.ready.seededTraces} traces`);
    const verified = await target.verify(ingest.accepted, p.verifySample, p.drainSeconds * 1000);
    return { ingest, reads, verified };
  });
}

function throttlePhase(p: LoadParameters, progress: (line: string) => void): Promise<ThrottlePhase> {
  progress(`429 phase: a second service with an ingestion limit of ${p.throttleLimit} per minute`);
  const noSeed = { requests: 0, spansPerRequest: THROTTLE_SPANS_PER_REQUEST, anomalyRate: 0, seed: SEED };
  return withTarget(startTarget({ rateLimits: { ...HIGH_LIMITS, ingestion: p.throttleLimit }, plan: PLAN, seed: noSeed }), async (target) => {
    const requests = p.throttleLimit * THROTTLE_OVERSHOOT;
    progress(`${requests} POST /api/spans from ${THROTTLE_CONNECTIONS} connections, as fast as they are answered`);
    const throttled = await runThrottled(target.ready, {
      limit: p.throttleLimit,
      requests,
      connections: THROTTLE_CONNECTIONS,
      spansPerRequest: THROTTLE_SPANS_PER_REQUEST,
      seed: SEED + 2,
    });
    // The verification's reads (one list, then the sample) are on the same low ingestion limit, with a key the load did not use.
    const sampleSize = Math.min(p.verifySample, p.throttleLimit - 1);
    const verified = await target.verify(throttled.accepted, sampleSize, p.drainSeconds * 1000);
    return { throttled, verified };
  });
}

const listed = (label: string, problems: readonly string[]): string[] =>
  problems.length === 0 ? [] : [`${label}: ${problems.length} × e.g. ${problems.slice(0, SHOWN_PROBLEMS).join(' | ')}`];

function connectionFailures(stream: string, stats: StreamStats): string[] {
  return [
    ...(stats.connectionErrors > 0 ? [`${stream}: ${stats.connectionErrors} connection error(s)`] : []),
    ...(stats.timeouts > 0 ? [`${stream}: ${stats.timeouts} request(s) timed out`] : []),
  ];
}

const storageFailures = (phase: string, v: Verification): string[] => listed(`${phase}: accepted but not stored as sent`, v.mismatches);

function mainFailures({ ingest, reads, verified }: MainPhase): string[] {
  const readErrors = [...reads.byRoute].flatMap(([route, tally]) =>
    Object.entries(tally.statuses)
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, count]) => `${route}: ${count} × ${status}`),
  );
  return [
    ...listed('ingest: not a clean 202', ingest.problems),
    ...(ingest.unanswered > 0 ? [`ingest: ${ingest.unanswered} request(s) never answered`] : []),
    ...connectionFailures('ingest', ingest.stats),
    ...listed('reads: errors', readErrors),
    ...connectionFailures('reads', reads.stats),
    ...storageFailures('main phase', verified.verification),
  ];
}

function throttleFailures({ throttled, verified }: ThrottlePhase): string[] {
  return [
    ...listed('429 phase: neither a clean 202 nor a 429 with Retry-After', throttled.problems),
    ...(throttled.refusedRequests === 0 ? ['429 phase: nothing was refused, the limit was never reached'] : []),
    ...connectionFailures('429 phase', throttled.stats),
    ...storageFailures('429 phase', verified.verification),
  ];
}

function streamFigures(stream: string, label: string, stats: StreamStats): Figure[] {
  return [
    { key: `${stream}Requests`, label: `${label}: requests answered`, value: stats.requests },
    { key: `${stream}RequestsPerSecond`, label: `${label}: requests/s`, value: round(stats.requestsPerSecond, 1), unit: 'req/s' },
    { key: `${stream}P50Ms`, label: `${label}: latency p50`, value: stats.p50Ms, unit: 'ms' },
    { key: `${stream}P99Ms`, label: `${label}: latency p99`, value: stats.p99Ms, unit: 'ms' },
    ...Object.entries(stats.statuses).map(([status, count]) => ({ key: `${stream}Status${status}`, label: `${label}: answers ${status}`, value: count })),
    { key: `${stream}ConnectionErrors`, label: `${label}: connection errors, timeouts`, value: stats.connectionErrors + stats.timeouts },
  ];
}

function routeFigures(reads: ReadOutcome): Figure[] {
  return [...reads.byRoute].flatMap(([route, { latenciesMs }]) => [
    { key: `read ${route} p50Ms`, label: `  ${route} p50`, value: round(median(latenciesMs), 1), unit: 'ms' },
    { key: `read ${route} p99Ms`, label: `  ${route} p99`, value: round(percentile(latenciesMs, 0.99), 1), unit: 'ms' },
  ]);
}

function storageFigures(key: string, label: string, drainSeconds: number, v: Verification): Figure[] {
  return [
    { key: `${key}DrainSeconds`, label: `${label}last answer → queues empty`, value: round(drainSeconds, 1), unit: 's' },
    { key: `${key}SpansAccepted`, label: `${label}spans accepted (incl. seeded)`, value: v.expectedSpans },
    { key: `${key}SpansStored`, label: `${label}spans stored (sum of the traces' spanCount)`, value: v.storedSpans },
    { key: `${key}TracesListed`, label: `${label}traces counted by GET /spans/traces`, value: v.listedTraces },
    { key: `${key}EveryAcceptedSpanStored`, label: `${label}every accepted span stored, nothing else`, value: v.mismatches.length === 0 },
  ];
}

function mainFigures(p: LoadParameters, { ingest, reads, verified }: MainPhase): Figure[] {
  return [
    { key: 'seconds', label: 'main phase', value: p.seconds, unit: 's' },
    { key: 'ingestOfferedRate', label: 'ingest: offered', value: p.ingestRate * p.spansPerRequest, unit: 'spans/s' },
    ...streamFigures('ingest', 'ingest', ingest.stats),
    { key: 'ingestSpansAcceptedPerSecond', label: 'ingest: spans accepted/s', value: Math.round(ingest.acceptedSpans / ingest.stats.seconds), unit: 'spans/s' },
    ...streamFigures('read', 'reads', reads.stats),
    ...routeFigures(reads),
    ...storageFigures('main', '', verified.drainSeconds, verified.verification),
  ];
}

function throttleFigures(p: LoadParameters, { throttled, verified }: ThrottlePhase): Figure[] {
  return [
    { key: 'throttleLimit', label: '429 phase: ingestion limit', value: p.throttleLimit, unit: 'per minute' },
    { key: 'throttleRequests', label: '429 phase: requests answered', value: throttled.stats.requests },
    { key: 'throttleAccepted', label: '429 phase: 202 accepted', value: throttled.acceptedRequests },
    { key: 'throttleRefused', label: '429 phase: 429 with Retry-After', value: throttled.refusedRequests },
    { key: 'throttleOtherAnswers', label: '429 phase: any other answer', value: throttled.problems.length },
    { key: 'throttleWindows', label: '429 phase: rate-limit windows', value: throttled.windows },
    ...storageFigures('throttle', '429 phase: ', verified.drainSeconds, verified.verification),
  ];
}
