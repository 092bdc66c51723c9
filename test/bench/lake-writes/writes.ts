import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLocalLake, openLocalLake, REOPEN_AFTER_ROWS } from '#shared/adapters/lake-duckdb.ts';
import { lakeRowsOf } from '#shared/domain/lake/records.ts';
import { LOCAL_LAKE_MEMORY_LIMIT, LOCAL_LAKE_THREADS } from '../../../infra/local/lake.ts';
import { seededRandom } from '../../support/random.ts';
import { BenchFailure } from '../scenario.ts';
import { CORPUS_AGENTS, corpusTrace } from '../search/corpus.ts';
import { collectGarbage } from '../stats.ts';

export interface LakeWritesRun {
  /** Whether the lake reopens every REOPEN_AFTER_ROWS rows, as the service's does, or stays open. */
  reopens: boolean;
  traces: number;
  tracesPerWrite: number;
}

export interface LakeWritesOutcome {
  reopens: boolean;
  spans: number;
  rows: number;
  seconds: number;
  /** Anonymous memory of the process (RssAnon): every allocator's, DuckDB's buffers among it. */
  anonPeakMb: number;
  anonEndMb: number;
  /**
   * The same without DuckDB's buffer manager (by its own count) and V8's heap (what it has committed,
   * collected just before): the native allocators' memory, DuckDB's structures among it.
   */
  nativePeakMb: number;
  nativeEndMb: number;
  /** The process's RSS at its highest, by the kernel's high-water mark (VmHWM): between samples too, checkpoints and the close among them. */
  rssPeakMb: number;
  opens: number;
  /** The file once closed (checkpointed), and how much of it is free blocks. */
  fileMb: number;
  freeMb: number;
}

const TENANT = 'tnt_lake_writes';
const DAY_MS = 86_400_000;
const SAMPLES = 20;
const MB = 1024 * 1024;

const statusBytes = async (field: 'RssAnon' | 'VmHWM') =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(await readFile('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const anonBytes = () => statusBytes('RssAnon');

/**
 * Writes the lake rows of `traces` corpus traces into a new local lake, `tracesPerWrite` a write as the
 * ingest worker does, in this process, sampling its anonymous memory and DuckDB's buffers as it goes.
 */
export async function runLakeWrites({ reopens, traces, tracesPerWrite }: LakeWritesRun, progress: (line: string) => void): Promise<LakeWritesOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'aos-bench-lake-writes-'));
  const path = join(dir, 'lake.duckdb');
  const settings = {
    path,
    memoryLimit: LOCAL_LAKE_MEMORY_LIMIT,
    threads: LOCAL_LAKE_THREADS,
    reopenAfterRows: reopens ? REOPEN_AFTER_ROWS : Number.MAX_SAFE_INTEGER,
  };
  try {
    const lake = await openLocalLake(settings);
    const agents = CORPUS_AGENTS.map((agent, i) => ({ ...agent, id: `agt_bench_${i}` }));
    const random = seededRandom(11);
    const startMs = Date.now() - DAY_MS;
    const expiresMs = Date.now() + 30 * DAY_MS;
    let spans = 0;
    let rows = 0;
    let anonPeak = 0;
    let nativePeak = 0;
    let anon = 0;
    let native = 0;
    const sampleEvery = Math.max(tracesPerWrite, Math.ceil(traces / SAMPLES / tracesPerWrite) * tracesPerWrite);
    const began = performance.now();
    for (let written = 0; written < traces; ) {
      const batch = [];
      for (const end = Math.min(traces, written + tracesPerWrite); written < end; written++) {
        batch.push(corpusTrace(random, agents[written % agents.length]!, startMs + written * 50, 1000));
      }
      const lakeRows = lakeRowsOf(TENANT, batch, [], expiresMs);
      spans += lakeRows.spans.length;
      rows += lakeRows.traces.length + lakeRows.spans.length;
      await lake.write(lakeRows);
      if (written % sampleEvery === 0 || written === traces) {
        const [buffers] = await lake.query({ sql: 'SELECT coalesce(sum(memory_usage_bytes), 0) AS bytes FROM duckdb_memory()', params: [] });
        collectGarbage();
        anon = await anonBytes();
        native = anon - Number(buffers?.['bytes'] ?? 0) - process.memoryUsage().heapTotal;
        anonPeak = Math.max(anonPeak, anon);
        nativePeak = Math.max(nativePeak, native);
        progress(
          `${reopens ? 'reopened' : 'kept open'}: ${written.toLocaleString('en-US')} traces written, anonymous memory ${Math.round(anon / MB)} MB (${Math.round(native / MB)} MB outside DuckDB's buffers and V8's heap), ${lake.opens} opens`,
        );
      }
    }
    // What the writes left queued (a reopen) is done before the clock stops.
    await lake.execute([]);
    const seconds = (performance.now() - began) / 1000;
    const opens = lake.opens;
    await closeLocalLake(path);
    const rssPeak = await statusBytes('VmHWM');
    const fileMb = (await stat(path)).size / MB;
    const reopened = await openLocalLake(settings);
    const [counted] = await reopened.query({ sql: 'SELECT (SELECT count(*) FROM lake_traces) + (SELECT count(*) FROM lake_spans) AS n', params: [] });
    const [size] = await reopened.query({ sql: 'SELECT free_blocks * block_size AS free FROM pragma_database_size()', params: [] });
    await closeLocalLake(path);
    if (Number(counted?.['n']) !== rows) throw new BenchFailure(`the lake holds ${counted?.['n']} rows of the ${rows} written`);
    return {
      reopens,
      spans,
      rows,
      seconds,
      anonPeakMb: anonPeak / MB,
      anonEndMb: anon / MB,
      nativePeakMb: nativePeak / MB,
      nativeEndMb: native / MB,
      rssPeakMb: rssPeak / MB,
      opens,
      fileMb,
      freeMb: Number(size?.['free'] ?? 0) / MB,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
