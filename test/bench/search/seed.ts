import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { closeLocalLake, openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import type { LakeRows } from '#shared/domain/lake/records.ts';
import { LAKE_TABLES } from '#shared/domain/lake/schema.ts';
import { LOCAL_LAKE_MEMORY_LIMIT } from '../../../infra/local/lake.ts';
import { CORPUS_AGENTS } from './corpus.ts';
import type { SeedPlan } from './seed-worker.ts';

/** The tenant every seeded trace belongs to; the bench creates its account under this id. */
export const BENCH_TENANT = 'tnt_searchbench';
const SEED = 20_260_318;
/** Bump when the corpus changes, so that a cached lake of the old corpus is not reused. */
const CORPUS_VERSION = 1;
const DAY_MS = 86_400_000;
const SPREAD_DAYS = 30;
const BATCH = 2000;

export interface BenchLake {
  /** The DuckDB file holding the seeded traces. */
  path: string;
  traces: number;
  /** A few seeded traces, to search for what only they hold. */
  samples: Array<{ traceId: string; sessionId: string | null; toolOutput: string | null; startMs: number }>;
  agents: Array<{ id: string; name: string }>;
  /** Seconds this run spent seeding; null when a cached lake was reused. */
  seededSeconds: number | null;
}

const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../.bench-data/search');

/**
 * A lake of `traces` seeded traces of one tenant over the last 30 days, built through the lake's own
 * row builder and writer (lakeRowsOf, LocalLake.write) in batches, and kept under .bench-data/ for the
 * next run: seeding a million traces takes most of an hour on two cores; searching them, minutes.
 */
export async function benchLake(traces: number, progress: (line: string) => void): Promise<BenchLake> {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([CORPUS_VERSION, SEED, traces, LAKE_TABLES.map((t) => t.columns.map((c) => [c.name, c.type]))]))
    .digest('hex')
    .slice(0, 12);
  const path = join(CACHE_DIR, `lake-${traces}-${fingerprint}.duckdb`);
  const sidecar = `${path}.json`;
  if (existsSync(path) && existsSync(sidecar)) {
    progress(`reusing the seeded lake ${path}`);
    return { ...(JSON.parse(await readFile(sidecar, 'utf8')) as Omit<BenchLake, 'seededSeconds'>), path, seededSeconds: null };
  }
  await mkdir(CACHE_DIR, { recursive: true });
  const building = `${path}.building`;
  await rm(building, { force: true });
  await rm(`${building}.wal`, { force: true });
  const startedAt = Date.now();
  const agents = CORPUS_AGENTS.map((a, i) => ({ ...a, id: `agt_bench_${i}` }));
  const plan: SeedPlan = {
    tenantId: BENCH_TENANT,
    traces,
    batch: BATCH,
    startMs: startedAt - SPREAD_DAYS * DAY_MS,
    spanMs: SPREAD_DAYS * DAY_MS,
    expiresMs: startedAt + 365 * DAY_MS,
    agents,
    sessions: Math.max(10, Math.floor(traces / 20)),
    seed: SEED,
  };
  const lake = await openLocalLake({ path: building, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: 2 });
  // A worker does not inherit the parent's module hooks: it registers tsx before loading the TypeScript.
  const entry = JSON.stringify(new URL('./seed-worker.ts', import.meta.url).href);
  const worker = new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${entry}); });`, { eval: true, workerData: plan });
  const samples: BenchLake['samples'] = [];
  try {
    let requested = 0;
    const request = () => {
      if (requested < traces) {
        worker.postMessage('next');
        requested += BATCH;
      }
    };
    const batches = new Promise<void>((resolve, reject) => {
      let written = 0;
      let writing = Promise.resolve();
      worker.on('error', reject);
      worker.on('message', (message: { rows: LakeRows; count: number; sample?: BenchLake['samples'][number] }) => {
        // The worker builds the next batch while this one is written.
        request();
        writing = writing.then(async () => {
          await lake.write(message.rows);
          if (message.sample && samples.length < 40) samples.push(message.sample);
          written += message.count;
          if (written % 50_000 < BATCH)
            progress(
              `seeded ${written.toLocaleString('en-US')} of ${traces.toLocaleString('en-US')} traces (${Math.round((Date.now() - startedAt) / 1000)} s)`,
            );
          if (written >= traces) resolve();
        }, reject);
        writing.catch(reject);
      });
    });
    request();
    request();
    await batches;
  } finally {
    await worker.terminate();
    await closeLocalLake(building);
  }
  await rename(building, path);
  await rm(`${building}.wal`, { force: true });
  const seeded: Omit<BenchLake, 'seededSeconds'> = { path, traces, samples, agents: agents.map((a) => ({ id: a.id, name: a.name })) };
  await writeFile(sidecar, JSON.stringify(seeded));
  return { ...seeded, seededSeconds: Math.round((Date.now() - startedAt) / 1000) };
}
