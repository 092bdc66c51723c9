import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { duckdb } from '../domain/lake/dialects.ts';
import { CONTENT_TYPES, type ExportJob, type ExportRunner, fileNameOf } from '../domain/lake/exports.ts';
import { type ExportFormat, exportPiecesSql, exportSql, type SqlStatement } from '../domain/lake/sql.ts';
import type { LocalLake } from './lake-duckdb.ts';

/**
 * Exports on a laptop: DuckDB writes the file under EXPORTS_DIR, and the authenticated download route
 * streams it. DuckDB's COPY streams rows to disk within its memory limit; a large export is written a
 * bounded number of spans at a time (pieces of consecutive start times, newest first) and the pieces
 * joined, so no step holds more than one piece's traces with their spans.
 */
export const SPANS_PER_PIECE = 10_000;

/** Rows of a row group in an exported Parquet file: DuckDB's smallest, so the join holds little. */
const PARQUET_ROW_GROUP = 2048;

const COPY_OPTIONS: Record<ExportFormat, string> = {
  jsonl: 'FORMAT JSON',
  csv: 'FORMAT CSV, HEADER false',
  parquet: 'FORMAT PARQUET, COMPRESSION ZSTD',
};

/**
 * `[startMs, endMs)` windows, newest first, from each piece's oldest start (newest piece first): the
 * windows cover the whole range, so every trace is in exactly one, with the traces of a start shared
 * by two pieces in the newer one.
 */
export function windowsOf(pieceStarts: readonly number[], startMs: number, endMs: number): Array<{ startMs: number; endMs: number }> {
  const windows: Array<{ startMs: number; endMs: number }> = [];
  let upper = endMs;
  for (const from of pieceStarts.slice(0, -1)) {
    if (from >= upper) continue;
    windows.push({ startMs: from, endMs: upper });
    upper = from;
  }
  windows.push({ startMs, endMs: upper });
  return windows;
}

const quoted = (path: string) => `'${path.replace(/'/g, "''")}'`;

export function localExportRunner(openLake: () => Promise<LocalLake>, settings: { exportsDir: string; publicAppUrl: string }): ExportRunner {
  const fileOf = (tenantId: string, exportId: string, format: ExportFormat) =>
    join(settings.exportsDir, encodeURIComponent(tenantId), `${encodeURIComponent(exportId)}.${format}`);

  return {
    async run({ tenantId, exportId, format, selection }: ExportJob) {
      const lake = await openLake();
      const file = fileOf(tenantId, exportId, format);
      const piecesDir = `${file}.pieces`;
      await rm(piecesDir, { recursive: true, force: true });
      await mkdir(piecesDir, { recursive: true });
      const connection = await lake.connect();
      try {
        const piecesSql = exportPiecesSql(duckdb, selection, SPANS_PER_PIECE);
        const starts = (await connection.runAndReadAll(piecesSql.sql, piecesSql.params)).getRowObjectsJS().map((r) => Number(r['from_ms']));
        const pieces = windowsOf(starts, selection.startMs, selection.endMs);
        const nested = format !== 'csv';
        const written: string[] = [];
        let rows = 0;
        for (const [i, piece] of pieces.entries()) {
          const statement: SqlStatement = exportSql(duckdb, { ...selection, ...piece, nested });
          const path = join(piecesDir, `${String(i).padStart(6, '0')}.${format}`);
          const result = await connection.runAndReadAll(`COPY (${statement.sql}) TO ${quoted(path)} (${COPY_OPTIONS[format]})`, statement.params);
          rows += Number(result.getRowsJS()[0]?.[0] ?? 0);
          written.push(path);
        }
        if (format === 'parquet') {
          // One file whose row groups follow the pieces' order (DuckDB reads a list of files in order),
          // joined on one thread in small row groups: the lake's threads, each writing a row group of
          // DuckDB's default 122,880 rows, ran out of memory joining 100,000 traces.
          const join = `COPY (SELECT * FROM read_parquet([${written.map(quoted).join(', ')}])) TO ${quoted(file)} (${COPY_OPTIONS.parquet}, ROW_GROUP_SIZE ${PARQUET_ROW_GROUP})`;
          await lake.scratch((scratch) => scratch.run(join));
        } else {
          await writeFile(file, format === 'csv' ? `${await csvHeader(connection, selection)}\n` : '');
          for (const path of written) await pipeline(createReadStream(path), createWriteStream(file, { flags: 'a' }));
        }
        return { rows, bytes: (await stat(file)).size, location: file };
      } finally {
        connection.closeSync();
        await rm(piecesDir, { recursive: true, force: true });
      }
    },

    async link(record) {
      return { url: `${settings.publicAppUrl}/api/exports/${encodeURIComponent(record.id)}/download`, expiresAt: record.deleteAfter * 1000 };
    },

    async download(record) {
      const file = record.location!;
      return { file, bytes: (await stat(file)).size, contentType: CONTENT_TYPES[record.format], filename: fileNameOf(record) };
    },
  };
}

/** The CSV header: the export's column names, read from the query itself without running it over data. */
async function csvHeader(connection: Awaited<ReturnType<LocalLake['connect']>>, selection: ExportJob['selection']): Promise<string> {
  const statement = exportSql(duckdb, { ...selection, startMs: 0, endMs: 0, nested: false });
  const reader = await connection.runAndReadAll(`SELECT * FROM (${statement.sql}) LIMIT 0`, statement.params);
  return reader.columnNames().join(',');
}
