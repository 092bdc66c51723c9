import { openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { LOCAL_LAKE_MEMORY_LIMIT, LOCAL_LAKE_THREADS } from '../../infra/local/lake.ts';

/**
 * What DuckDB's buffer manager holds (`duckdb_memory()`), in bytes, for the lake the local runtime has
 * open at `path` in this process (the path it was opened with: `openLocalLake` answers the instance
 * open at that path). What DuckDB's allocator keeps besides is not in it.
 */
export async function lakeBufferBytes(path: string): Promise<number> {
  const lake = await openLocalLake({ path, memoryLimit: LOCAL_LAKE_MEMORY_LIMIT, threads: LOCAL_LAKE_THREADS });
  const [row] = await lake.query({ sql: 'SELECT coalesce(sum(memory_usage_bytes), 0) AS bytes FROM duckdb_memory()', params: [] });
  return Number(row?.['bytes'] ?? 0);
}
