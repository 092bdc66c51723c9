import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SPANS_PER_PIECE } from '#shared/adapters/exports-local.ts';
import { closeLocalLake, openLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { athena, duckdb } from '#shared/domain/lake/dialects.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { type LakeTable, SIGNALS_TABLE, SPANS_TABLE, TRACES_TABLE } from '#shared/domain/lake/schema.ts';
import { exportPiecesSql, exportSql, spansOfTracesSql, traceSearchSql } from '#shared/domain/lake/sql.ts';
import { QUERY_KINDS, type QueryKind, queriesOf } from '../search/queries.ts';
import { BENCH_TENANT, benchLake } from '../search/seed.ts';
import type { LakeLayout } from './deployment.ts';
import { PRICES } from './prices.ts';

/**
 * What Athena would scan and bill for the service's searches and exports of one tenant's traces on AWS,
 * estimated for the lake as the lake stack lays it out: Iceberg tables of Parquet files, partitioned by a
 * bucket of the tenant and the day, compressed with the stack's codec. Athena reads, of the files of the
 * partitions a query's tenant and time predicates select, only the columns the query names, and bills
 * those compressed bytes. So: the columns each query reads are taken from the SQL the lake's query
 * builder writes for Athena, and the compressed bytes of each column per row are measured on Parquet that
 * DuckDB writes, with the same codec, from a sample of the search bench's seeded traces (realistic text).
 */
export interface AthenaOptions {
  /** The tenant whose searches are priced: its traces, spread as the sample's over 30 days. */
  tenantTraces: number;
  /** Seeded traces the compression is measured on. */
  sampleTraces: number;
}

export interface TableMeasure {
  rows: number;
  /** Per column, compressed bytes per row. */
  columnBytes: Record<string, number>;
  /** Per text column (strings of more than TEXT_BYTES a row on average), its raw bytes per row. */
  textBytes: Record<string, number>;
  compressedBytes: number;
  uncompressedBytes: number;
  fileBytes: number;
}

export interface PricedQuery {
  kind: QueryKind | 'export';
  q: string;
  /** The share of the tenant's traces it matches (measured on the sample). */
  matchShare: number;
  /** Per table read, the columns. */
  columns: Record<string, string[]>;
  /** Days of spans the page's snippets read (the days of its 50 newest hits). */
  spanDays: number;
  scannedBytes: number;
  /** Athena's billing: per statement, rounded up to the MB, at least 10 MB. */
  billedBytes: number;
  dollars: number;
  /** The same with the text columns compressed as prose compresses (PROSE_RATIO): the corpus's template sentences compress far better. */
  proseScannedBytes: number;
  proseDollars: number;
  /** Over the workgroup's scan limit: Athena cancels it (a search answers 400 asking for less). */
  overLimit: boolean;
}

export interface AthenaEstimate {
  options: AthenaOptions;
  layout: LakeLayout;
  /** Day partitions the tenant's traces fill. */
  days: number;
  spansPerTrace: number;
  tables: Record<string, TableMeasure>;
  queries: PricedQuery[];
  /** The lake's files per million traces: as measured, and with prose-like text. */
  storage: {
    bytesPerMillionTraces: number;
    dollarsPerMillionTracesMonth: number;
    proseBytesPerMillionTraces: number;
    proseDollarsPerMillionTracesMonth: number;
  };
}

/** A string column longer than this a row on average holds text (inputs, outputs, the search text), not names or ids. */
const TEXT_BYTES = 64;
/** What zstd makes of ordinary prose and JSON: about 3× (the corpus repeats its sentences, so it measures far more). */
export const PROSE_RATIO = 3;
const MB = 2 ** 20;
const TB = 2 ** 40;
const PAGE = 50;
const billed = (statementBytes: readonly number[]) =>
  statementBytes.reduce((sum, bytes) => sum + Math.max(PRICES.athena.minimumMbPerQuery, Math.ceil(bytes / MB)) * MB, 0);
const dollarsOf = (bytes: number) => (bytes / TB) * PRICES.athena.perTbScanned;
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The SQL of each subquery that reads `table` (its `FROM <table>` and the parentheses around it), or the whole statement. */
function scopesOf(sql: string, table: string): string[] {
  return [...sql.matchAll(new RegExp(`\\bFROM ${table}\\b`, 'g'))].map((match) => {
    let open = -1;
    for (let i = match.index - 1, depth = 0; i >= 0; i--) {
      if (sql[i] === ')') depth++;
      else if (sql[i] === '(' && depth-- === 0) {
        open = i;
        break;
      }
    }
    let close = sql.length;
    for (let i = match.index, depth = 0; i < sql.length; i++) {
      if (sql[i] === '(') depth++;
      else if (sql[i] === ')' && depth-- === 0) {
        close = i;
        break;
      }
    }
    return sql.slice(open + 1, close);
  });
}

/** The columns of `table` that a statement reads: those its subqueries over the table name. */
export function columnsRead(sql: string, table: LakeTable): string[] {
  const named = new Set(scopesOf(sql, table.name).flatMap((scope) => scope.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []));
  return table.columns.map((c) => c.name).filter((name) => named.has(name));
}

const bytesOf = (measure: TableMeasure, columns: readonly string[]) => columns.reduce((sum, c) => sum + (measure.columnBytes[c] ?? 0), 0);
const proseBytesOf = (measure: TableMeasure, columns: readonly string[]) =>
  columns.reduce((sum, c) => sum + Math.max(measure.columnBytes[c] ?? 0, (measure.textBytes[c] ?? 0) / PROSE_RATIO), 0);

export async function estimateAthena(options: AthenaOptions, layout: LakeLayout, progress: (line: string) => void): Promise<AthenaEstimate> {
  const sample = await benchLake(options.sampleTraces, progress);
  const codec = layout.tables.get(TRACES_TABLE.name)!.codec.toUpperCase();
  const dayMs = Number(/truncate\[(\d+)\]/.exec(layout.tables.get(TRACES_TABLE.name)!.partitions.find((p) => p.source === TRACES_TABLE.time)!.transform)![1]);
  const dir = await mkdtemp(join(tmpdir(), 'aos-cost-lake-'));
  const lake = await openLocalLake({ path: sample.path, memoryLimit: '512MB', threads: 2 });
  try {
    return await lake.withConnection(async (connection) => {
      const read = async (sql: string, params: Array<string | number> = []) => (await connection.runAndReadAll(sql, params)).getRowObjectsJS();
      progress(`measuring ${codec} Parquet of ${sample.traces.toLocaleString('en-US')} seeded traces, column by column`);
      const tables: Record<string, TableMeasure> = {};
      for (const table of [TRACES_TABLE, SPANS_TABLE, SIGNALS_TABLE]) {
        const rows = Number((await read(`SELECT count(*) AS n FROM ${table.name}`))[0]!['n']);
        const file = join(dir, `${table.name}.parquet`);
        await connection.run(`COPY (SELECT * FROM ${table.name} ORDER BY ${table.time}) TO '${file}' (FORMAT PARQUET, COMPRESSION ${codec})`);
        const chunks = await read(
          'SELECT path_in_schema AS name, sum(total_compressed_size) AS compressed, sum(total_uncompressed_size) AS uncompressed FROM parquet_metadata(?) GROUP BY 1',
          [file],
        );
        const strings = table.columns.filter((c) => c.type === 'string').map((c) => c.name);
        const raw = rows === 0 ? {} : (await read(`SELECT ${strings.map((c) => `avg(coalesce(strlen(${c}), 0)) AS ${c}`).join(', ')} FROM ${table.name}`))[0]!;
        tables[table.name] = {
          rows,
          columnBytes: Object.fromEntries(chunks.map((c) => [String(c['name']), rows === 0 ? 0 : Number(c['compressed']) / rows])),
          textBytes: Object.fromEntries(
            Object.entries(raw)
              .filter(([, bytes]) => Number(bytes) > TEXT_BYTES)
              .map(([c, bytes]) => [c, Number(bytes)]),
          ),
          compressedBytes: chunks.reduce((sum, c) => sum + Number(c['compressed']), 0),
          uncompressedBytes: chunks.reduce((sum, c) => sum + Number(c['uncompressed']), 0),
          fileBytes: (await stat(file)).size,
        };
      }
      const traces = tables[TRACES_TABLE.name]!;
      const spans = tables[SPANS_TABLE.name]!;
      const signals = tables[SIGNALS_TABLE.name]!;
      const days = Number((await read(`SELECT count(DISTINCT floor(${TRACES_TABLE.time} / ${dayMs})) AS n FROM ${TRACES_TABLE.name}`))[0]!['n']);
      const spansPerTrace = spans.rows / traces.rows;
      const signalsPerTrace = signals.rows / traces.rows;
      const tenantSpansPerDay = (spansPerTrace * options.tenantTraces) / days;
      const range = { tenantId: BENCH_TENANT, startMs: 0, endMs: sample.seededAtMs + dayMs, nowMs: sample.seededAtMs };
      const limitOf = (bytes: number) => bytes > layout.scanLimitBytes;

      progress("pricing the search bench's queries and an export");
      const queries: PricedQuery[] = [];
      const queryList = queriesOf(sample);
      for (const kind of QUERY_KINDS) {
        for (const q of queryList[kind]) {
          const query = parseSearchQuery(q);
          const pieces = exportPiecesSql(duckdb, { ...range, query }, SPANS_PER_PIECE);
          const matches = (await read(pieces.sql, pieces.params)).reduce((sum, r) => sum + Number(r['traces']), 0);
          const matchShare = matches / traces.rows;
          const traceColumns = columnsRead(traceSearchSql(athena, { ...range, query, limit: PAGE + 1 }).sql, TRACES_TABLE);
          const spanColumns = columnsRead(spansOfTracesSql(athena, BENCH_TENANT, [{ traceId: 't', startMs: 0 }]).sql, SPANS_TABLE);
          // The page's 50 newest hits lie in the last days: as many as hold 50 of them.
          const spanDays = matches === 0 ? 0 : Math.min(days, Math.ceil(PAGE / ((matchShare * options.tenantTraces) / days)));
          const statementsOf = (of: typeof bytesOf) => [
            of(traces, traceColumns) * options.tenantTraces,
            ...(spanDays > 0 ? [of(spans, spanColumns) * tenantSpansPerDay * spanDays] : []),
          ];
          const statements = statementsOf(bytesOf);
          const prose = statementsOf(proseBytesOf);
          queries.push({
            kind,
            q,
            matchShare,
            columns: { [TRACES_TABLE.name]: traceColumns, ...(spanDays > 0 && { [SPANS_TABLE.name]: spanColumns }) },
            spanDays,
            scannedBytes: sum(statements),
            billedBytes: billed(statements),
            dollars: dollarsOf(billed(statements)),
            proseScannedBytes: sum(prose),
            proseDollars: dollarsOf(billed(prose)),
            overLimit: prose.some(limitOf),
          });
        }
      }
      const exported = exportSql(athena, { ...range, query: parseSearchQuery(''), nested: true }).sql;
      const exportColumns = Object.fromEntries([TRACES_TABLE, SPANS_TABLE, SIGNALS_TABLE].map((t) => [t.name, columnsRead(exported, t)]));
      const exportBytesOf = (of: typeof bytesOf) =>
        of(traces, exportColumns[TRACES_TABLE.name]!) * options.tenantTraces +
        of(spans, exportColumns[SPANS_TABLE.name]!) * spansPerTrace * options.tenantTraces +
        of(signals, exportColumns[SIGNALS_TABLE.name]!) * signalsPerTrace * options.tenantTraces;
      const exportBytes = exportBytesOf(bytesOf);
      const exportProse = exportBytesOf(proseBytesOf);
      queries.push({
        kind: 'export',
        q: '',
        matchShare: 1,
        columns: exportColumns,
        spanDays: days,
        scannedBytes: exportBytes,
        billedBytes: billed([exportBytes]),
        dollars: dollarsOf(billed([exportBytes])),
        proseScannedBytes: exportProse,
        proseDollars: dollarsOf(billed([exportProse])),
        overLimit: limitOf(exportProse),
      });

      const bytesPerTrace = (traces.fileBytes + spans.fileBytes + signals.fileBytes) / traces.rows;
      const everyColumn = (table: LakeTable) => table.columns.map((c) => c.name);
      const proseBytesPerTrace =
        proseBytesOf(traces, everyColumn(TRACES_TABLE)) +
        proseBytesOf(spans, everyColumn(SPANS_TABLE)) * spansPerTrace +
        proseBytesOf(signals, everyColumn(SIGNALS_TABLE)) * signalsPerTrace;
      const monthly = (bytes: number) => (bytes / 2 ** 30) * PRICES.s3.standardPerGbMonth;
      return {
        options,
        layout,
        days,
        spansPerTrace,
        tables,
        queries,
        storage: {
          bytesPerMillionTraces: bytesPerTrace * 1e6,
          dollarsPerMillionTracesMonth: monthly(bytesPerTrace * 1e6),
          proseBytesPerMillionTraces: proseBytesPerTrace * 1e6,
          proseDollarsPerMillionTracesMonth: monthly(proseBytesPerTrace * 1e6),
        },
      };
    });
  } finally {
    await closeLocalLake(sample.path);
    await rm(dir, { recursive: true, force: true });
  }
}

const megabytes = (bytes: number) => `${(bytes / MB).toLocaleString('en-US', { maximumFractionDigits: bytes < 10 * MB ? 1 : 0 })} MB`;
const money = (dollars: number) => `$${dollars.toFixed(4)}`;
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The estimate as `npm run cost` prints it: per kind of search and for an export, then what it rests on. */
export function formatAthenaReport(estimate: AthenaEstimate): string {
  const { options, layout, tables } = estimate;
  const traces = tables[TRACES_TABLE.name]!;
  const spans = tables[SPANS_TABLE.name]!;
  const lakeTable = layout.tables.get(TRACES_TABLE.name)!;
  const partitions = lakeTable.partitions.map((p) => `${p.transform} of ${p.source}`).join(', ');
  const rows = [
    ...QUERY_KINDS.map((kind) => {
      const of = estimate.queries.filter((q) => q.kind === kind);
      return {
        item: `${kind} search, mean of ${of.length} (most: ${megabytes(Math.max(...of.map((q) => q.proseScannedBytes)))})`,
        scanned: mean(of.map((q) => q.scannedBytes)),
        dollars: mean(of.map((q) => q.dollars)),
        proseScanned: mean(of.map((q) => q.proseScannedBytes)),
        proseDollars: mean(of.map((q) => q.proseDollars)),
        overLimit: of.some((q) => q.overLimit),
      };
    }),
    ...estimate.queries
      .filter((q) => q.kind === 'export')
      .map((q) => ({
        item: `export of all ${options.tenantTraces.toLocaleString('en-US')} traces`,
        scanned: q.scannedBytes,
        dollars: q.dollars,
        proseScanned: q.proseScannedBytes,
        proseDollars: q.proseDollars,
        overLimit: q.overLimit,
      })),
  ];
  const width = Math.max(...rows.map((r) => r.item.length));
  const columnsOf = (kind: PricedQuery['kind']) => {
    const of = estimate.queries.filter((q) => q.kind === kind);
    const tablesRead = [...new Set(of.flatMap((q) => Object.keys(q.columns)))];
    return tablesRead.map((table) => `${table} ${[...new Set(of.flatMap((q) => q.columns[table] ?? []))].join(', ')}`).join('; ');
  };
  const largest = (measure: TableMeasure, unit: string) =>
    `${Object.entries(measure.columnBytes)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 4)
      .map(([c, b]) => `${c} ${Math.round(b)} B${measure.textBytes[c] ? ` of ${Math.round(measure.textBytes[c])}` : ''}`)
      .join(', ')} ${unit}`;
  const perTrace = (measure: TableMeasure, perRow = 1) => `${Math.round((measure.compressedBytes / measure.rows) * perRow).toLocaleString('en-US')} B`;
  const header = `  ${''.padEnd(width)}  ${'corpus text, measured'.padStart(26)}  ${`text compressed ${PROSE_RATIO}×`.padStart(26)}  ${'per 1,000'.padStart(9)}`;
  return [
    `\nAthena, per search and per export of one tenant's ${options.tenantTraces.toLocaleString('en-US')} traces over ${estimate.days} days (the lake stack's layout: Iceberg, ${lakeTable.format} ${lakeTable.codec}, partitioned by ${partitions})`,
    header,
    ...rows.map(
      (r) =>
        `  ${r.item.padEnd(width)}  ${`${megabytes(r.scanned)} ${money(r.dollars)}`.padStart(26)}  ${`${megabytes(r.proseScanned)} ${money(r.proseDollars)}`.padStart(26)}  ${money(r.proseDollars * 1000).padStart(9)}${r.overLimit ? '  OVER the scan limit' : ''}`,
    ),
    `  every query within the workgroup's scan limit (${megabytes(layout.scanLimitBytes)}), prose-like text included: ${rows.some((r) => r.overLimit) ? 'NO' : 'yes'}`,
    '\nColumns each reads (from the SQL the query builder writes for Athena):',
    ...[...QUERY_KINDS, 'export' as const].map((kind) => `  ${kind}: ${columnsOf(kind)}`),
    `\nMeasured on ${traces.rows.toLocaleString('en-US')} seeded traces of the search bench's corpus (${estimate.spansPerTrace.toFixed(1)} spans each), written by DuckDB as ${lakeTable.codec} Parquet, bytes a row compressed (of raw text):`,
    `  ${TRACES_TABLE.name}: ${perTrace(traces)} a trace, ${(traces.uncompressedBytes / traces.compressedBytes).toFixed(1)}× smaller than its encoded columns; largest: ${largest(traces, 'a trace')}`,
    `  ${SPANS_TABLE.name}: ${perTrace(spans, estimate.spansPerTrace)} a trace, ${(spans.uncompressedBytes / spans.compressedBytes).toFixed(1)}×; largest: ${largest(spans, 'a span')}`,
    `  The corpus builds its text from a few hundred template sentences, which zstd compresses far better than agents' real text: the second column takes every text column (more than ${TEXT_BYTES} B a row) at ${PROSE_RATIO}× its raw size instead, as zstd does prose and JSON; read that one as the estimate.`,
    `  The lake's files per million traces: ${megabytes(estimate.storage.bytesPerMillionTraces)} as measured (${money(estimate.storage.dollarsPerMillionTracesMonth)} a month in S3 Standard), ${megabytes(estimate.storage.proseBytesPerMillionTraces)} with prose-like text (${money(estimate.storage.proseDollarsPerMillionTracesMonth)} a month).`,
    `\nPrices: Athena $${PRICES.athena.perTbScanned}/TB scanned, at least ${PRICES.athena.minimumMbPerQuery} MB a statement (a search is two: its traces, then its page's spans); S3 Standard $${PRICES.s3.standardPerGbMonth}/GB-month (${PRICES.region}, list, as of ${PRICES.asOf}; test/bench/cost/prices.ts).`,
    "Assumed: the tenant alone in its tenant bucket (another tenant hashed to the same bucket adds its rows of the same days to every scan); compacted files (before compaction, Firehose's upserts add equality-delete files to read); no row group skipped by its statistics (Athena may skip some for the time and number terms: these are upper bounds); the page's snippets read the days of its 50 newest hits at the match rate measured on the sample. Not counted: S3 GET requests of the scans, Glue catalog calls, Firehose's ingestion into the lake, the download of an export (data transfer out).",
  ].join('\n');
}
