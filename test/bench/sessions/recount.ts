import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Store } from '#shared/domain/store.ts';
import { batchWrite, putRequests } from '#shared/store/batch.ts';
import type { Db } from '#shared/store/client.ts';
import { sessionTraceItem } from '#shared/store/sessions.ts';
import { startStore } from '../../support/dynamo.ts';
import { traceSummary } from '../../unit/analytics/fixtures.ts';
import { type Figure, type Scenario, type ScenarioResult, UsageError } from '../scenario.ts';
import { round } from '../stats.ts';

const TENANT = 'tnt_recount';
const T0 = Date.UTC(2026, 10, 1);
const EXPIRES_AT = 2_000_000_000;
/** Copies written per BatchWriteItem round while seeding. */
const SEED_CHUNK = 1000;
const HEAP_SAMPLE_MS = 5;
/**
 * What a recount may hold per trace it reads more, at most: the growth of its heap peak (above what
 * was in use before it; garbage not yet collected included) from the smaller session to the larger,
 * per trace. It keeps each trace's id, not its items. Holding the items, as before 2026-11-30, took
 * 3,472 B a trace from 10,000 to 100,000 traces and failed outright at 300,000 (a spread of every
 * trace's expiry into Math.max).
 */
const MAX_HEAP_BYTES_PER_TRACE = 1024;
const MB = 1024 * 1024;

/** V8's collector, to start each measurement from a collected heap (the bench runs without --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

interface Recount {
  traces: number;
  seconds: number;
  heapPeakMb: number;
  counted: number;
}

export const sessionRecountScenario: Scenario = {
  name: 'session-recount',
  summary:
    "one session's queued recount (a conversation, or every trace sent with one session id) at two sizes, its copies seeded into an in-memory dynalite: its time and the heap it holds, which must not grow with the session's items",
  flags: {
    'small-traces': { default: 10_000, max: 1_000_000, description: 'traces of the smaller session' },
    traces: { default: 300_000, max: 2_000_000, description: 'traces of the larger session (more than --small-traces)' },
  },
  run: async (flags, progress) => {
    if (flags['traces']! <= flags['small-traces']!)
      throw new UsageError(`--traces ${flags['traces']} is not more than --small-traces ${flags['small-traces']}`);
    const { db, store, stop } = await startStore('aos-bench-recount');
    try {
      const gc = collector();
      const small = await recount(db, store, gc, 'small', flags['small-traces']!, progress);
      const large = await recount(db, store, gc, 'large', flags['traces']!, progress);
      return result(flags, small, large);
    } finally {
      await stop();
    }
  },
};

async function recount(db: Db, store: Store, gc: () => void, sessionId: string, traces: number, progress: (line: string) => void): Promise<Recount> {
  for (let i = 0; i < traces; i += SEED_CHUNK) {
    const copies = Array.from({ length: Math.min(SEED_CHUNK, traces - i) }, (_, j) => {
      const n = i + j;
      const summary = traceSummary({
        traceId: `${sessionId}-${String(n).padStart(8, '0')}-4bf92f3577b34da6a3ce929d0e0e4736`,
        startTimeMs: T0 + n * 1000,
        endTimeMs: T0 + n * 1000 + 800,
        status: n % 20 === 0 ? 'error' : 'ok',
        sessionId,
      });
      return { ...sessionTraceItem(TENANT, { ...summary, sessionId }, 1000, EXPIRES_AT), writeId: `w-${n}` };
    });
    await batchWrite(db, putRequests(copies));
  }
  progress(`${sessionId}: ${traces.toLocaleString('en-US')} traces seeded; recounting`);
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, HEAP_SAMPLE_MS);
  const startedAt = performance.now();
  try {
    await store.sessions.refreshQueued(TENANT, sessionId, Date.now());
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const counted = (await store.sessions.get(TENANT, sessionId))?.traceCount ?? 0;
  const heapPeakMb = (peak - before) / MB;
  progress(`${sessionId}: recounted in ${round(seconds, 1)} s, heap peak ${round(heapPeakMb, 0)} MB above the start, ${counted} traces counted`);
  return { traces, seconds, heapPeakMb, counted };
}

function result(parameters: Record<string, number>, small: Recount, large: Recount): ScenarioResult {
  const figures: Figure[] = [];
  for (const r of [small, large]) {
    const size = r === small ? 'smaller' : 'larger';
    figures.push(
      { key: `${size}Traces`, label: `traces of the ${size} session`, value: r.traces },
      { key: `${size}Seconds`, label: `${size}: recount time`, value: round(r.seconds, 2), unit: 's' },
      { key: `${size}TracesPerSecond`, label: `${size}: traces recounted per second`, value: round(r.traces / r.seconds, 0) },
      { key: `${size}HeapPeakMb`, label: `${size}: heap peak above the start (uncollected garbage included)`, value: round(r.heapPeakMb, 0), unit: 'MB' },
    );
  }
  const heapPerTrace = ((large.heapPeakMb - small.heapPeakMb) * MB) / (large.traces - small.traces);
  figures.push(
    { key: 'heapPerAddedTrace', label: 'heap peak added per trace, smaller to larger', value: round(heapPerTrace, 0), unit: 'B' },
    { key: 'secondsPerTraceRatio', label: 'time per trace, larger ÷ smaller', value: round(large.seconds / large.traces / (small.seconds / small.traces), 2) },
  );
  const failures = [
    ...[small, large].flatMap((r) => (r.counted === r.traces ? [] : [`the session of ${r.traces} traces counted ${r.counted}`])),
    ...(heapPerTrace <= MAX_HEAP_BYTES_PER_TRACE
      ? []
      : [`the recount's heap grew by ${round(heapPerTrace, 0)} B a trace from ${small.traces} to ${large.traces} traces, over ${MAX_HEAP_BYTES_PER_TRACE}`]),
  ];
  return { parameters, figures, failures };
}
