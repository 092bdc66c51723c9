import * as z from 'zod/mini';
import { ConfigError } from './config-error.ts';
import './schemas/messages.ts';

/**
 * The trace lake's settings, read once by the functions that use the lake (the rest never load this
 * module). `npm start` sets the local ones; the CDK app sets the AWS ones on exactly the functions
 * that need each.
 *
 * | variable | meaning |
 * |---|---|
 * | `LAKE` | `duckdb` (local) or `athena` (AWS) |
 * | `LAKE_DUCKDB_PATH`, `LAKE_MEMORY_LIMIT` (128MB), `LAKE_THREADS` (2) | the local database file and DuckDB's limits |
 * | `EXPORTS_DIR` | where local exports are written |
 * | `LAKE_FIREHOSE_STREAM` | the Firehose stream the ingest worker writes to |
 * | `LAKE_DATABASE`, `LAKE_WORKGROUP` | the Glue database of the lake's tables and the Athena workgroup that reads them |
 * | `LAKE_EXPORTS_BUCKET`, `LAKE_EXPORTS_DATABASE` | where exports are written, and the Glue database of their short-lived tables |
 * | `ASK_TRANSLATOR` (`builtin`), `ASK_MODEL_ID` | who turns questions into queries: the built-in parser or a Bedrock model |
 * | `SEARCH_QUERY_TIMEOUT_SECONDS` (20) | how long a search waits for Athena |
 */
const nonEmpty = z.string().check(z.minLength(1));

/** A size as DuckDB reads it: KB, MB and GB are powers of 1000, KiB, MiB and GiB of 1024 (the `bytes` package reads KB as 1024). */
const SIZE = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB|KiB|MiB|GiB)$/i;
const UNIT_BYTES: Record<string, number> = { kb: 1e3, mb: 1e6, gb: 1e9, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30 };
const bytesOf = (size: string): number => {
  const [, amount, unit] = SIZE.exec(size) ?? [];
  return amount && unit ? Number(amount) * UNIT_BYTES[unit.toLowerCase()]! : Number.NaN;
};
/**
 * The least memory limit the local lake takes. DuckDB holds the rows written since its last
 * checkpoint in two blocks for each of the lake's 125 columns (62 MB with the 256 KB blocks of lake
 * files made before 2026-11-30; new files have 16 KB blocks, not measured at lower limits); with a 64 MB limit
 * its checkpoint failed after about 10,000 traces, an error DuckDB calls fatal, and with 32 MB its
 * commits failed (a script writing the lake alone, [local-runtime.md](../docs/local-runtime.md#memory)).
 * 128 MB is also the default, and what `npm start` sets.
 */
const LEAST_LAKE_MEMORY = '128MB';

const lakeEnv = z.object({
  LAKE: z.optional(z.enum(['duckdb', 'athena'])),
  LAKE_DUCKDB_PATH: z.optional(nonEmpty),
  LAKE_MEMORY_LIMIT: z._default(z.string().check(z.regex(SIZE, 'must be a size such as 128MB')), LEAST_LAKE_MEMORY),
  LAKE_THREADS: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(64)), 2),
  EXPORTS_DIR: z.optional(nonEmpty),
  LAKE_FIREHOSE_STREAM: z.optional(nonEmpty),
  LAKE_DATABASE: z.optional(nonEmpty),
  LAKE_WORKGROUP: z.optional(nonEmpty),
  LAKE_EXPORTS_BUCKET: z.optional(nonEmpty),
  LAKE_EXPORTS_DATABASE: z.optional(nonEmpty),
  ASK_TRANSLATOR: z._default(z.enum(['builtin', 'bedrock']), 'builtin'),
  ASK_MODEL_ID: z._default(nonEmpty, 'amazon.nova-lite-v1:0'),
  SEARCH_QUERY_TIMEOUT_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(900)), 20),
});

export type LakeSettings = ReturnType<typeof parseLakeSettings>;

function localMemoryLimit(size: string): string {
  if (bytesOf(size) < bytesOf(LEAST_LAKE_MEMORY)) throw new ConfigError(`invalid configuration: LAKE_MEMORY_LIMIT: must be at least ${LEAST_LAKE_MEMORY}`);
  return size;
}

export function parseLakeSettings(env: Record<string, string | undefined>) {
  const parsed = z.safeParse(lakeEnv, env);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const required = (name: keyof typeof e): string => {
    const value = e[name];
    if (typeof value !== 'string') throw new ConfigError(`invalid configuration: LAKE=${e.LAKE} needs ${name}`);
    return value;
  };
  return {
    engine: e.LAKE,
    /** The local lake; present when LAKE=duckdb. */
    local:
      e.LAKE === 'duckdb'
        ? {
            path: required('LAKE_DUCKDB_PATH'),
            memoryLimit: localMemoryLimit(e.LAKE_MEMORY_LIMIT),
            threads: e.LAKE_THREADS,
            exportsDir: required('EXPORTS_DIR'),
          }
        : undefined,
    /** The AWS lake; each function gets the names it uses. */
    aws:
      e.LAKE === 'athena'
        ? {
            firehoseStream: e.LAKE_FIREHOSE_STREAM,
            database: e.LAKE_DATABASE,
            workgroup: e.LAKE_WORKGROUP,
            exportsBucket: e.LAKE_EXPORTS_BUCKET,
            exportsDatabase: e.LAKE_EXPORTS_DATABASE,
          }
        : undefined,
    ask: { translator: e.ASK_TRANSLATOR, modelId: e.ASK_MODEL_ID },
    searchTimeoutMs: e.SEARCH_QUERY_TIMEOUT_SECONDS * 1000,
  };
}

export const lakeSettings: LakeSettings = parseLakeSettings(process.env);
