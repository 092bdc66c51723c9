import { openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { LOCAL_LAKE_MEMORY_LIMIT, LOCAL_LAKE_THREADS } from '../../infra/local/lake.ts';

/** DuckDB's buffers in bytes, and what holds them by its tags (`IN_MEMORY_TABLE 12, BASE_TABLE 3`, in MB, the largest first). */
export interface LakeBuffers {
  bytes: number;
  byTag: string;
}

/**
 * What DuckDB's buffer manager holds (`duckdb_memory()`) for the lake the local runtime has open at
 * `path` in this process (the path it was opened with: `openLocalLake` answers the instance open at
 * that path). What DuckDB's allocator keeps besides is not in it.
 */
export async function lakeBuffers(path: string): Promise<LakeBuffers> {
  const lake = await openLocalLake({ path, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: LOCAL_LAKE_THREADS });
  const tags = await lake.query({
    sql: 'SELECT tag, memory_usage_bytes AS bytes FROM duckdb_memory() WHERE memory_usage_bytes >= 524288 ORDER BY memory_usage_bytes DESC',
    params: [],
  });
  const [row] = await lake.query({ sql: 'SELECT coalesce(sum(memory_usage_bytes), 0) AS bytes FROM duckdb_memory()', params: [] });
  return {
    bytes: Number(row?.['bytes'] ?? 0),
    byTag: tags.map((t) => `${String(t['tag'])} ${Math.round(Number(t['bytes']) / 1024 / 1024)}`).join(', '),
  };
}

export const lakeBufferBytes = async (path: string): Promise<number> => (await lakeBuffers(path)).bytes;
