import { openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { LOCAL_LAKE_MEMORY_LIMIT, LOCAL_LAKE_THREADS } from '../../infra/local/lake.ts';

/** Tags holding less than this are counted in `bytes` but not named in `byTag`. */
const NAMED_TAG_BYTES = 512 * 1024;

/** DuckDB's buffers in bytes, and the tags that hold NAMED_TAG_BYTES or more (`IN_MEMORY_TABLE 12, BASE_TABLE 3`, in MB, the largest first). */
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
  // One query, so that the tags and their sum are of the same moment.
  const tags = await lake.query({ sql: 'SELECT tag, memory_usage_bytes AS bytes FROM duckdb_memory() ORDER BY memory_usage_bytes DESC', params: [] });
  return {
    bytes: tags.reduce((sum, t) => sum + Number(t['bytes']), 0),
    byTag: tags
      .filter((t) => Number(t['bytes']) >= NAMED_TAG_BYTES)
      .map((t) => `${String(t['tag'])} ${Math.round(Number(t['bytes']) / 1024 / 1024)}`)
      .join(', '),
  };
}

export const lakeBufferBytes = async (path: string): Promise<number> => (await lakeBuffers(path)).bytes;
