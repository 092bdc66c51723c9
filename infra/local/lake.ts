import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLocalLake, IDLE_REOPEN_MS, openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { EXPORT_LIFETIME_DAYS } from '#shared/domain/lake/exports.ts';

export interface LocalLakeService {
  /** What the handlers need to reach it (shared/lake-config.ts). */
  environment: Record<string, string>;
  /** Deletes export files past their lifetime (S3's lifecycle rule does it on AWS); answers how many. */
  sweepExports(nowMs: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * DuckDB's memory limit locally: the local service shares a laptop, and DuckDB spills beyond it. DuckDB
 * fills it with the lake's blocks as a cache, so it is most of what the lake adds to the process; the
 * lake's files outgrow any such cache (a million traces: 3 GB), and the system's file cache keeps them
 * anyway: at a million traces searches were as fast under 128 MB as under 256 MB, and the service held
 * 130 MB less.
 */
export const LOCAL_LAKE_MEMORY_LIMIT = '128MB';
export const LOCAL_LAKE_THREADS = 2;

/**
 * The trace lake of the local runtime: a DuckDB database in this process, at `<DATA_DIR>/lake/`, with
 * exports written to `<DATA_DIR>/exports/`; in a temporary directory, removed at stop, without a data dir.
 */
export async function startLocalLake(dataDir: string | undefined): Promise<LocalLakeService> {
  const temporary = dataDir ? undefined : await mkdtemp(join(tmpdir(), 'aos-lake-'));
  const root = dataDir ?? temporary!;
  const path = join(root, 'lake', 'traces.duckdb');
  const exportsDir = join(root, 'exports');
  await mkdir(exportsDir, { recursive: true });
  await openLocalLake({ path, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: LOCAL_LAKE_THREADS, idleReopenMs: IDLE_REOPEN_MS });
  return {
    environment: {
      LAKE: 'duckdb',
      LAKE_DUCKDB_PATH: path,
      LAKE_MEMORY_LIMIT: LOCAL_LAKE_MEMORY_LIMIT,
      LAKE_THREADS: String(LOCAL_LAKE_THREADS),
      EXPORTS_DIR: exportsDir,
    },
    async sweepExports(nowMs) {
      let removed = 0;
      for (const tenant of await readdir(exportsDir)) {
        const dir = join(exportsDir, tenant);
        for (const file of await readdir(dir).catch(() => [])) {
          const { mtimeMs } = await stat(join(dir, file));
          if (mtimeMs < nowMs - EXPORT_LIFETIME_DAYS * 86_400_000) {
            await rm(join(dir, file), { recursive: true, force: true });
            removed++;
          }
        }
      }
      return removed;
    },
    async stop() {
      await closeLocalLake(path);
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
}
