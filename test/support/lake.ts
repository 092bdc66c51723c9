import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLocalLake, type LocalLake, openLocalLake } from '#shared/adapters/lake-duckdb.ts';

/** A DuckDB lake of its own in a temporary directory, for tests that store through the ingest path. */
export async function startTestLake(): Promise<LocalLake & { dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'aos-lake-'));
  const path = join(dir, 'lake.duckdb');
  const lake = await openLocalLake({ path, memoryLimit: '128MB', threads: 1 });
  return {
    ...lake,
    dir,
    async remove() {
      await closeLocalLake(path);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
