import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { closeLocalLake, openLocalLake, SQL_TYPES } from '#shared/adapters/lake-duckdb.ts';
import { LAKE_TABLES, type LakeTable, SPANS_TABLE, TRACES_TABLE } from '#shared/domain/lake/schema.ts';
import { CORPUS_AGENTS } from './corpus.ts';
import type { SeededBatch, SeedPlan } from './seed-worker.ts';

/** The tenant every seeded trace belongs to; the bench creates its account under this id. */
export const BENCH_TENANT = 'tnt_searchbench';
const SEED = 20_260_318;
/** Bump when the corpus or the way it is built changes, so that a cached lake of the old one is not reused. */
const CORPUS_VERSION = 2;
const DAY_MS = 86_400_000;
const SPREAD_DAYS = 30;
/** A cached lake older than this is seeded again: its traces must stay within the plan's retention (90 days). */
const MAX_CACHE_AGE_DAYS = 30;
const BATCH = 5000;
/** DuckDB's memory while loading (the service then opens the file with its own 256 MB limit). */
const SEED_MEMORY_LIMIT = '1GB';
const CHECKPOINT_EVERY = '256MB';

export interface BenchLake {
  /** The DuckDB file holding the seeded traces. */
  path: string;
  traces: number;
  /** When it was seeded: its traces start 30 days before. */
  seededAtMs: number;
  /** A few seeded traces, to search for what only they hold. */
  samples: NonNullable<SeededBatch['sample']>[];
  agents: Array<{ id: string; name: string }>;
  /** Seconds this run spent seeding; null when a cached lake was reused. */
  seededSeconds: number | null;
}

const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../.bench-data/search');

/** Loads a batch's JSON lines into a lake table as they are: the table's own columns and types, rows appended in file order. */
const insertSql = (table: LakeTable, file: string) =>
  `INSERT INTO ${table.name} SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${table.columns.map((c) => `'${c.name}': '${SQL_TYPES[c.type]}'`).join(', ')}})`;

/**
 * A lake of `traces` seeded traces of one tenant over the 30 days before it was seeded, kept under
 * .bench-data/ for the next run. The rows are the lake's own (the corpus's traces through lakeRowsOf,
 * which the ingest worker's lake write uses), built by worker threads and bulk-loaded with DuckDB's
 * INSERT … SELECT from JSON lines, batch after batch in time order: the tables, column types and row
 * order of the lake writer (LocalLake.write), without its per-write replacing, which new rows do not need.
 */
export async function benchLake(traces: number, progress: (line: string) => void): Promise<BenchLake> {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([CORPUS_VERSION, SEED, BATCH, traces, LAKE_TABLES.map((t) => t.columns.map((c) => [c.name, c.type]))]))
    .digest('hex')
    .slice(0, 12);
  const path = join(CACHE_DIR, `lake-${traces}-${fingerprint}.duckdb`);
  const sidecar = `${path}.json`;
  if (existsSync(path) && existsSync(sidecar)) {
    const cached = JSON.parse(await readFile(sidecar, 'utf8')) as Omit<BenchLake, 'seededSeconds' | 'path'>;
    if (Date.now() - cached.seededAtMs < MAX_CACHE_AGE_DAYS * DAY_MS) {
      progress(`reusing the seeded lake ${path}`);
      return { ...cached, path, seededSeconds: null };
    }
  }
  await mkdir(CACHE_DIR, { recursive: true });
  const building = `${path}.building`;
  await rm(building, { force: true });
  await rm(`${building}.wal`, { force: true });
  const dir = await mkdtemp(join(CACHE_DIR, 'batches-'));
  const seededAtMs = Date.now();
  const agents = CORPUS_AGENTS.map((a, i) => ({ ...a, id: `agt_bench_${i}` }));
  const plan: SeedPlan = {
    tenantId: BENCH_TENANT,
    traces,
    batch: BATCH,
    startMs: seededAtMs - SPREAD_DAYS * DAY_MS,
    spanMs: SPREAD_DAYS * DAY_MS,
    expiresMs: seededAtMs + 365 * DAY_MS,
    agents,
    sessions: Math.max(10, Math.floor(traces / 20)),
    seed: SEED,
    dir,
  };
  const batches = Math.ceil(traces / BATCH);
  const workerCount = Math.max(1, Math.min(availableParallelism(), batches));
  progress(`seeding ${traces.toLocaleString('en-US')} traces: ${workerCount} worker threads build the rows, DuckDB loads them`);
  const lake = await openLocalLake({ path: building, memoryLimit: SEED_MEMORY_LIMIT, threads: 2 });
  // A worker does not inherit the parent's module hooks: it registers tsx before loading the TypeScript.
  const entry = JSON.stringify(new URL('./seed-worker.ts', import.meta.url).href);
  const workers = Array.from(
    { length: workerCount },
    () => new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`, { eval: true, workerData: plan }),
  );
  const samples: BenchLake['samples'] = [];
  try {
    await lake.withConnection(async (connection) => {
      // Few checkpoints: each writes the rows loaded since the last in row groups of 122,880 rows, its last
      // one partial (the lake runs without DuckDB's vacuum, which merged them), rather than one per batch.
      await connection.run(`SET checkpoint_threshold = '${CHECKPOINT_EVERY}'`);
      await new Promise<void>((resolve, reject) => {
        const ready = new Map<number, SeededBatch>();
        // A worker waits while twice as many batches as there are workers wait to be loaded: their files take disk, and loading sets the pace.
        const idle: Worker[] = [];
        const room = () => ready.size < workerCount * 2;
        let requested = 0;
        let loaded = 0;
        let loading = false;
        let written = 0;
        const request = (worker: Worker) => {
          if (requested < batches) worker.postMessage({ batch: requested++ });
        };
        // Loads the batches that are ready, in order: the table's rows stay in time order.
        const load = async () => {
          if (loading) return;
          loading = true;
          try {
            for (let next = ready.get(loaded); next; next = ready.get(loaded)) {
              ready.delete(loaded);
              await connection.run(insertSql(TRACES_TABLE, next.files.traces!));
              await connection.run(insertSql(SPANS_TABLE, next.files.spans!));
              await Promise.all(Object.values(next.files).map((file) => rm(file, { force: true })));
              if (next.sample && samples.length < 40) samples.push(next.sample);
              written += next.count;
              loaded++;
              while (idle.length > 0 && room()) request(idle.shift()!);
              if (loaded % 20 === 0 || loaded === batches)
                progress(
                  `seeded ${written.toLocaleString('en-US')} of ${traces.toLocaleString('en-US')} traces (${Math.round((Date.now() - seededAtMs) / 1000)} s)`,
                );
            }
          } finally {
            loading = false;
          }
          if (loaded === batches) resolve();
        };
        for (const worker of workers) {
          worker.on('error', reject);
          worker.on('message', (batch: SeededBatch) => {
            ready.set(batch.batch, batch);
            if (room()) request(worker);
            else idle.push(worker);
            load().catch(reject);
          });
          // Two batches each: a worker builds its next while its last is loaded.
          request(worker);
          request(worker);
        }
      });
      await connection.run('CHECKPOINT');
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
    await closeLocalLake(building);
    await rm(dir, { recursive: true, force: true });
  }
  await rename(building, path);
  await rm(`${building}.wal`, { force: true });
  const seeded: Omit<BenchLake, 'seededSeconds' | 'path'> = { traces, seededAtMs, samples, agents: agents.map((a) => ({ id: a.id, name: a.name })) };
  await writeFile(sidecar, JSON.stringify(seeded));
  return { ...seeded, path, seededSeconds: Math.round((Date.now() - seededAtMs) / 1000) };
}
