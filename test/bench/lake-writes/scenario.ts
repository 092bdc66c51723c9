import { REOPEN_AFTER_ROWS } from '#shared/adapters/lake-duckdb.ts';
import { runIsolated } from '../analytics/isolated.ts';
import type { Figure, Scenario, ScenarioResult } from '../scenario.ts';
import { round } from '../stats.ts';
import type { LakeWritesOutcome, LakeWritesRun } from './writes.ts';

export const lakeWritesScenario: Scenario = {
  name: 'lake-writes',
  summary: `the local lake alone, writing the lake rows of corpus traces as the ingest worker does, twice, each in a process of its own: reopened every ${REOPEN_AFTER_ROWS.toLocaleString('en-US')} rows as the service's lake is, then kept open; the process's RSS at its highest (the kernel's high-water mark), its anonymous memory (sampled after a collection) in all and outside DuckDB's buffers and V8's heap, the time and the file`,
  flags: {
    traces: { default: 100_000, max: 2_000_000, description: 'traces written (about five spans each)' },
    'traces-per-write': { default: 20, max: 1000, description: 'traces a write, as an ingest batch brings them' },
  },
  run: async (flags, progress) => {
    const runs: LakeWritesOutcome[] = [];
    for (const reopens of [true, false]) {
      const run: LakeWritesRun = { reopens, traces: flags['traces']!, tracesPerWrite: flags['traces-per-write']! };
      runs.push(await runIsolated<LakeWritesRun, LakeWritesOutcome>(new URL('./child.ts', import.meta.url), run, progress));
    }
    return result(flags, runs as [LakeWritesOutcome, LakeWritesOutcome]);
  },
};

function result(parameters: Record<string, number>, [reopened, keptOpen]: [LakeWritesOutcome, LakeWritesOutcome]): ScenarioResult {
  const figures: Figure[] = [
    { key: 'spans', label: 'spans written (each run)', value: reopened.spans },
    { key: 'rows', label: 'lake rows written (traces and spans, each run)', value: reopened.rows },
  ];
  for (const run of [reopened, keptOpen]) {
    const key = run.reopens ? 'reopened' : 'keptOpen';
    const name = run.reopens ? 'reopened' : 'kept open';
    figures.push(
      {
        key: `${key}RssPeakMb`,
        label: `${name}: RSS at its highest (the kernel's high-water mark, the close included)`,
        value: round(run.rssPeakMb),
        unit: 'MB',
      },
      { key: `${key}AnonPeakMb`, label: `${name}: anonymous memory, peak of the samples`, value: round(run.anonPeakMb), unit: 'MB' },
      { key: `${key}AnonEndMb`, label: `${name}: anonymous memory at the end`, value: round(run.anonEndMb), unit: 'MB' },
      { key: `${key}NativePeakMb`, label: `${name}: outside DuckDB's buffers and V8's heap, peak`, value: round(run.nativePeakMb), unit: 'MB' },
      { key: `${key}NativeEndMb`, label: `${name}: outside DuckDB's buffers and V8's heap at the end`, value: round(run.nativeEndMb), unit: 'MB' },
      { key: `${key}Seconds`, label: `${name}: time to write`, value: round(run.seconds, 1), unit: 's' },
      { key: `${key}Opens`, label: `${name}: times the lake was opened`, value: run.opens },
      { key: `${key}FileMb`, label: `${name}: the file, checkpointed`, value: round(run.fileMb), unit: 'MB' },
      { key: `${key}FreeMb`, label: `${name}: of which free blocks`, value: round(run.freeMb), unit: 'MB' },
    );
  }
  const failures =
    reopened.nativeEndMb <= keptOpen.nativeEndMb
      ? []
      : [
          `reopened, the lake's process ended with ${round(reopened.nativeEndMb)} MB outside DuckDB's buffers and V8's heap, more than the ${round(keptOpen.nativeEndMb)} MB of the lake kept open`,
        ];
  return { parameters, figures, failures };
}
