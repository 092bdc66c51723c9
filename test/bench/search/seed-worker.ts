// Builds the lake rows of the seeded traces off the main thread, a batch per request, in order.
import { parentPort, workerData } from 'node:worker_threads';
import { lakeRowsOf } from '#shared/domain/lake/records.ts';
import { seededRandom } from '../../support/random.ts';
import { type CorpusAgent, corpusTrace } from './corpus.ts';

export interface SeedPlan {
  tenantId: string;
  traces: number;
  batch: number;
  startMs: number;
  spanMs: number;
  expiresMs: number;
  agents: CorpusAgent[];
  sessions: number;
  seed: number;
}

const plan = workerData as SeedPlan;
const random = seededRandom(plan.seed);
let next = 0;
parentPort!.on('message', () => {
  const traces = [];
  for (const end = Math.min(plan.traces, next + plan.batch); next < end; next++) {
    traces.push(corpusTrace(random, plan.agents[next % plan.agents.length]!, plan.startMs + Math.floor((next / plan.traces) * plan.spanMs), plan.sessions));
  }
  const sample = traces[Math.floor(traces.length / 2)];
  const tool = sample?.spans.find((s) => s.kind === 'tool' && s.output);
  parentPort!.postMessage({
    rows: lakeRowsOf(plan.tenantId, traces, [], plan.expiresMs),
    count: traces.length,
    sample: sample && {
      traceId: sample.summary.traceId,
      sessionId: sample.summary.sessionId,
      toolOutput: tool?.output ?? null,
      startMs: sample.summary.startTimeMs,
    },
  });
});
