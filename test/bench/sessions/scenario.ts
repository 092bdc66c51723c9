import { SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlEnv } from '#shared/catalog.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { LARGE_SESSION_TRACES, refreshDelaySeconds } from '#shared/domain/sessions/sessions.ts';
import { queueCounts } from '../../../infra/local/sqs.ts';
import { postBatches } from '../ingest/load.ts';
import { BENCH_PLAN, INGEST_BENCH_RATE_LIMITS } from '../ingest/service-run.ts';
import { conversationTurns, type SpanBatch, seededRandom, spanCountOf } from '../ingest/traces.ts';
import { BenchFailure, type Figure, type Scenario, type ScenarioResult, UsageError } from '../scenario.ts';
import { type BenchAccount, type BenchService, signUp, startBenchService } from '../service.ts';
import { type Elapsed, round, stopwatch } from '../stats.ts';

const SEED = 20_261_129;
const SESSION_ID = 'bench-conversation';
const SETTLED_CHECK_MS = 25;
const ROUND_TIMEOUT_MS = 600_000;
/**
 * The last round has to store its traces at least this fraction as fast as the first: runs of the
 * code as it is gave 0.81–1.19, the whole-read path 0.4 (docs/ingestion.md, Sessions at scale).
 */
const FLAT_RATIO = 0.7;
/** The warm-up's conversation passes LARGE_SESSION_TRACES, so that the first round pays no first use of the large path. */
const WARMUP_TRACES = LARGE_SESSION_TRACES + 50;

interface SessionsParameters {
  traces: number;
  rounds: number;
  concurrency: number;
}

export const sessionsScenario: Scenario = {
  name: 'sessions',
  summary:
    "one conversation grown to --traces traces through the local service, one trace a request (an agent sending each turn as it ends): how fast each round's traces are stored as the conversation grows, against the first round, and whether the conversation's figures count every trace once its last refresh has run",
  flags: {
    traces: { default: 5000, min: 10, max: 100_000, description: 'traces of the one conversation, split evenly into the rounds' },
    rounds: { default: 5, min: 2, description: 'rounds; each is sent, then stored, before the next (delayed refreshes are not waited for)' },
    concurrency: { default: 4, description: 'clients with a request in flight' },
  },
  run: (flags, progress) => runSessions({ traces: flags['traces']!, rounds: flags['rounds']!, concurrency: flags['concurrency']! }, flags, progress),
};

interface SessionRound {
  traces: number;
  /** The conversation's traces once the round was stored. */
  sessionTraces: number;
  /** From the first request until the ingest queue holds no message but delayed ones (the queued refreshes). */
  stored: Elapsed;
}

interface SessionsRun {
  rounds: SessionRound[];
  /** What the conversation's figures counted when the last round was stored, before its last refresh. */
  countedBeforeRefresh: number;
  /** From the last round stored until every queue was empty: the last refresh had run. */
  refreshedAfter: Elapsed;
  countedAfterRefresh: number;
  /** Entries of the conversation's list (`GET /sessions/{id}`, page by page), and the distinct traces among them. */
  listedEntries: number;
  listed: number;
}

async function runSessions(p: SessionsParameters, flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  if (p.rounds > p.traces) throw new UsageError(`--rounds ${p.rounds} is more than --traces ${p.traces}`);
  const random = seededRandom(SEED);
  const warmup = conversationTurns(random, WARMUP_TRACES, `${SESSION_ID}-warm-up`, Date.now() - WARMUP_TRACES * 1000 - 60_000);
  const turns = conversationTurns(random, p.traces, SESSION_ID, Date.now() - p.traces * 1000 - 60_000);
  const quota = PLANS[BENCH_PLAN].features.spans;
  if (spanCountOf(warmup) + spanCountOf(turns) > quota) throw new UsageError(`the run would send more than the ${BENCH_PLAN} plan's ${quota} spans`);
  const rounds = Array.from({ length: p.rounds }, (_, i) => turns.slice(Math.floor((i * p.traces) / p.rounds), Math.floor(((i + 1) * p.traces) / p.rounds)));
  const run = await measure(p, warmup, rounds, progress);
  return { parameters: flags, figures: figures(p, run), failures: failures(p, run) };
}

async function measure(p: SessionsParameters, warmup: SpanBatch[], rounds: SpanBatch[][], progress: (line: string) => void): Promise<SessionsRun> {
  const service = await startBenchService(INGEST_BENCH_RATE_LIMITS);
  try {
    const account = await signUp(service, BENCH_PLAN);
    const settled = ingestQueueSettled(service);
    progress(`warm-up: ${warmup.length} traces of another conversation, and its refresh`);
    await send(service, account, warmup, p.concurrency);
    await drained(service, refreshDelaySeconds(WARMUP_TRACES));

    const measured: SessionRound[] = [];
    let sessionTraces = 0;
    for (const [i, turns] of rounds.entries()) {
      progress(`round ${i + 1} of ${rounds.length}: ${turns.length} traces of the conversation, one a request, from ${p.concurrency} clients`);
      const elapsed = stopwatch();
      await send(service, account, turns, p.concurrency);
      await settled();
      const stored = elapsed();
      sessionTraces += turns.length;
      measured.push({ traces: turns.length, sessionTraces, stored });
    }
    const countedBeforeRefresh = await traceCount(service, account);
    progress(`waiting for the conversation's last refresh (due ${refreshDelaySeconds(p.traces)} s after the trace that queued it)`);
    const elapsed = stopwatch();
    await drained(service, refreshDelaySeconds(p.traces));
    const refreshedAfter = elapsed();
    const countedAfterRefresh = await traceCount(service, account);
    progress("reading the conversation's trace list a page at a time");
    return { rounds: measured, countedBeforeRefresh, refreshedAfter, countedAfterRefresh, ...(await tracesListed(service, account)) };
  } finally {
    await service.stop();
  }
}

async function send(service: BenchService, account: BenchAccount, batches: readonly SpanBatch[], concurrency: number): Promise<void> {
  const outcomes = await postBatches(service, account.apiKey, batches, concurrency);
  const refused = outcomes.filter((o) => o.problem !== undefined);
  if (refused.length > 0) throw new BenchFailure(`${refused.length} request(s) not fully accepted, e.g. ${refused[0]!.problem}`);
}

/** Throws as soon as a queue consumer has failed a message: the figures would mean nothing. */
function assertNoFailures(service: BenchService): void {
  if (service.consumerFailures.length === 0) return;
  throw new BenchFailure(`a queue message failed: ${service.consumerFailures[0]} (LOG_LEVEL=ERROR shows the worker's error)`);
}

/** Every queue empty, the delayed refreshes run too (due `delaySeconds` after the last trace at most). */
async function drained(service: BenchService, delaySeconds: number): Promise<void> {
  let outcome: { failed?: unknown } | undefined;
  const drain = service.drainQueues((delaySeconds + 300) * 1000).then(
    () => (outcome = {}),
    (failed: unknown) => (outcome = { failed }),
  );
  while (outcome === undefined) {
    await Promise.race([drain, new Promise((resolve) => setTimeout(resolve, 500))]);
    assertNoFailures(service);
  }
  if ('failed' in outcome) throw new BenchFailure(`the queues did not empty: ${(outcome.failed as Error).message}`);
}

/**
 * Resolves once the ingest queue holds no message waiting or in flight: every trace sent so far is
 * stored, with its copy in the conversation. The delayed ones, the conversation's queued refreshes,
 * are left to run when due.
 */
function ingestQueueSettled(service: BenchService): () => Promise<void> {
  const sqs = new SQSClient({ endpoint: service.environment['AWS_ENDPOINT_URL_SQS'] });
  const url = service.environment[queueUrlEnv('ingest')]!;
  return async () => {
    const deadline = Date.now() + ROUND_TIMEOUT_MS;
    for (;;) {
      assertNoFailures(service);
      const { waiting, inFlight } = await queueCounts(sqs, url);
      if (waiting + inFlight === 0) return;
      if (Date.now() > deadline) throw new BenchFailure(`the ingest queue still held messages after ${ROUND_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, SETTLED_CHECK_MS));
    }
  };
}

/** The conversation's figures: its trace count, as `GET /sessions/{id}` answers it. */
async function traceCount(service: BenchService, account: BenchAccount): Promise<number> {
  const res = await service.api('GET', `/sessions/${SESSION_ID}?limit=1`, { apiKey: account.apiKey });
  if (res.status !== 200) throw new BenchFailure(`GET /sessions/${SESSION_ID} answered ${res.status}`);
  return Number(res.body.data.traceCount);
}

/** The conversation's trace list read page by page by cursor (`GET /sessions/{id}`): its entries, and the distinct traces among them. */
async function tracesListed(service: BenchService, account: BenchAccount): Promise<{ listedEntries: number; listed: number }> {
  const seen = new Set<string>();
  let entries = 0;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? 'limit=100' : `limit=100&cursor=${encodeURIComponent(cursor)}`;
    const res = await service.api('GET', `/sessions/${SESSION_ID}?${query}`, { apiKey: account.apiKey });
    if (res.status !== 200) throw new BenchFailure(`GET /sessions/${SESSION_ID} answered ${res.status}`);
    const traces = res.body.data.traces as Array<{ traceId: string }>;
    entries += traces.length;
    for (const trace of traces) seen.add(trace.traceId);
    cursor = res.body.pagination.hasMore ? (res.body.pagination.nextCursor as string) : null;
  } while (cursor !== null);
  return { listedEntries: entries, listed: seen.size };
}

const perSecond = (count: number, e: Elapsed) => count / e.seconds;

function figures(p: SessionsParameters, run: SessionsRun): Figure[] {
  const rates = run.rounds.map((r) => perSecond(r.traces, r.stored));
  const cpu = run.rounds.map((r) => (r.stored.cpuSeconds * 1000) / r.traces);
  return [
    { key: 'traces', label: 'traces of the conversation', value: p.traces },
    { key: 'rounds', label: 'rounds', value: p.rounds },
    { key: 'concurrency', label: 'concurrent clients', value: p.concurrency },
    { key: 'largeSessionTraces', label: 'traces from which a conversation is refreshed apart (LARGE_SESSION_TRACES)', value: LARGE_SESSION_TRACES },
    ...run.rounds.flatMap((r, i): Figure[] => [
      {
        key: `round${i + 1}TracesPerSecond`,
        label: `round ${i + 1} (conversation at ${r.sessionTraces - r.traces + 1}–${r.sessionTraces} traces): traces stored per second`,
        value: Math.round(rates[i]!),
        unit: 'traces/s',
      },
      { key: `round${i + 1}CpuMsPerTrace`, label: `round ${i + 1}: CPU time per trace (every thread)`, value: round(cpu[i]!, 1), unit: 'ms' },
    ]),
    { key: 'lastToFirstRoundRatio', label: 'last round / first round, traces stored per second', value: round(rates.at(-1)! / rates[0]!, 2) },
    { key: 'countedBeforeRefresh', label: "the conversation's trace count once its last trace was stored", value: run.countedBeforeRefresh },
    { key: 'refreshDelaySeconds', label: `refresh delay at ${p.traces} traces (refreshDelaySeconds)`, value: refreshDelaySeconds(p.traces), unit: 's' },
    {
      key: 'refreshedAfterSeconds',
      label: 'last trace stored → every queue empty (its last refresh run)',
      value: round(run.refreshedAfter.seconds, 1),
      unit: 's',
    },
    { key: 'countedAfterRefresh', label: "the conversation's trace count then", value: run.countedAfterRefresh },
    { key: 'everyTraceCounted', label: 'every trace counted', value: run.countedAfterRefresh === p.traces },
    { key: 'listedEntries', label: "entries of the conversation's list", value: run.listedEntries },
    { key: 'tracesListed', label: "distinct traces in the conversation's list", value: run.listed },
  ];
}

function failures(p: SessionsParameters, run: SessionsRun): string[] {
  const found: string[] = [];
  const first = perSecond(run.rounds[0]!.traces, run.rounds[0]!.stored);
  const last = perSecond(run.rounds.at(-1)!.traces, run.rounds.at(-1)!.stored);
  if (last < FLAT_RATIO * first) {
    found.push(
      `the last round stored ${Math.round(last)} traces a second, under ${FLAT_RATIO} of the first round's ${Math.round(first)}: a trace costs more as the conversation grows`,
    );
  }
  if (run.countedAfterRefresh !== p.traces) found.push(`the conversation counts ${run.countedAfterRefresh} traces once refreshed, not ${p.traces}`);
  if (run.listed !== p.traces || run.listedEntries !== p.traces) {
    found.push(`the conversation lists ${run.listedEntries} entries of ${run.listed} traces, not ${p.traces} traces once each`);
  }
  return found;
}
