// Builds the lake rows of a batch of seeded traces off the main thread and writes them as JSON lines, one file per table, for DuckDB to load.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { type LakeRows, lakeRowsOf } from '#shared/domain/lake/records.ts';
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
  /** Where the batches' files go. */
  dir: string;
}

export interface SeededBatch {
  batch: number;
  count: number;
  /** Per lake table (lake_traces, lake_spans), the JSON lines file of its rows. */
  files: Partial<Record<keyof LakeRows, string>>;
  sample?: { traceId: string; sessionId: string | null; toolOutput: string | null; startMs: number };
}

const plan = workerData as SeedPlan;

parentPort!.on('message', ({ batch }: { batch: number }) => {
  // Each batch has its own random sequence, so the corpus does not depend on how many workers build it.
  const random = seededRandom(plan.seed + batch);
  const traces = [];
  for (let next = batch * plan.batch, end = Math.min(plan.traces, next + plan.batch); next < end; next++) {
    traces.push(corpusTrace(random, plan.agents[next % plan.agents.length]!, plan.startMs + Math.floor((next / plan.traces) * plan.spanMs), plan.sessions));
  }
  const rows = lakeRowsOf(plan.tenantId, traces, [], plan.expiresMs);
  const files: SeededBatch['files'] = {};
  for (const table of ['traces', 'spans'] as const) {
    files[table] = join(plan.dir, `${String(batch).padStart(6, '0')}.${table}.jsonl`);
    writeFileSync(files[table], rows[table].map((row) => JSON.stringify(row)).join('\n'));
  }
  const sample = traces[Math.floor(traces.length / 2)];
  const tool = sample?.spans.find((s) => s.kind === 'tool' && s.output);
  const seeded: SeededBatch = {
    batch,
    count: traces.length,
    files,
    ...(sample && {
      sample: { traceId: sample.summary.traceId, sessionId: sample.summary.sessionId, toolOutput: tool?.output ?? null, startMs: sample.summary.startTimeMs },
    }),
  };
  parentPort!.postMessage(seeded);
});
