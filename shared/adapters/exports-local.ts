import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../domain/lake/dialects.ts';
import { CONTENT_TYPES, type ExportJob, type ExportRunner, fileNameOf } from '../domain/lake/exports.ts';
import { type ExportFormat, exportPiecesSql, exportSql, type SqlStatement } from '../domain/lake/sql.ts';
import { logger } from '../observability/logger.ts';
import type { LocalLake } from './lake-duckdb.ts';

/**
 * Exports on a laptop: DuckDB writes the file under EXPORTS_DIR, and the authenticated download route
 * streams it. DuckDB's COPY streams rows to disk within its memory limit; a large export is written a
 * bounded number of spans at a time (pieces of consecutive start times, newest first) and the pieces
 * joined, so no step holds more than one piece's traces with their spans.
 */
export const SPANS_PER_PIECE = 10_000;

/**
 * Rows of a row group in an exported Parquet file, tried in turn: the join holds a row group at a time,
 * and 2,048 traces of 64 KB of text each (128 MB) ran out of the lake's 128 MB; 256 of them joined in
 * 0.7 s (docs/local-runtime.md, "DuckDB's blocks").
 */
const PARQUET_ROW_GROUPS = [2048, 256, 32];

/**
 * A piece that ran out of DuckDB's memory is cut again into pieces of this many times fewer spans: a
 * piece of 10,000 spans of 32 KB inputs and outputs holds 640 MB of text, and DuckDB reads a column
 * 2,048 rows at a time. Within the lake's 128 MB, 1,000 such spans failed and 100 were written.
 */
const PIECE_SHRINK = 8;

/** DuckDB refused a statement for memory: an error of the statement, after which the database goes on. */
const outOfMemory = (err: unknown) => err instanceof Error && /Out of Memory Error/.test(err.message);

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
      try {
        const { written, rows, header } = await lake.withConnection(async (connection) => {
          const piecesOf = async (within: { startMs: number; endMs: number }, spans: number) => {
            const piecesSql = exportPiecesSql(duckdb, { ...selection, ...within }, spans);
            const starts = (await connection.runAndReadAll(piecesSql.sql, piecesSql.params)).getRowObjectsJS().map((r) => Number(r['from_ms']));
            return windowsOf(starts, within.startMs, within.endMs).map((window) => ({ ...window, spans }));
          };
          // Newest first; a piece too large for DuckDB's memory is replaced, in place, by smaller ones.
          const pieces = await piecesOf(selection, SPANS_PER_PIECE);
          const nested = format !== 'csv';
          const written: string[] = [];
          let rows = 0;
          for (let piece = pieces.shift(); piece; piece = pieces.shift()) {
            const statement: SqlStatement = exportSql(duckdb, { ...selection, startMs: piece.startMs, endMs: piece.endMs, nested });
            const path = join(piecesDir, `${String(written.length).padStart(6, '0')}.${format}`);
            try {
              const result = await connection.runAndReadAll(`COPY (${statement.sql}) TO ${quoted(path)} (${COPY_OPTIONS[format]})`, statement.params);
              rows += Number(result.getRowsJS()[0]?.[0] ?? 0);
              written.push(path);
            } catch (err) {
              if (!outOfMemory(err) || piece.spans === 1) throw err;
              await rm(path, { force: true });
              const spans = Math.max(1, Math.floor(piece.spans / PIECE_SHRINK));
              logger.info('an export piece ran out of memory; writing it in smaller pieces', { exportId, spans: piece.spans, into: spans });
              pieces.unshift(...(await piecesOf(piece, spans)));
            }
          }
          // The CSV header is read from the query on the lake; the pieces are joined without it.
          const header = format === 'csv' ? `${await csvHeader(connection, selection)}\n` : '';
          return { written, rows, header };
        });
        if (format === 'parquet') {
          // One file whose row groups follow the pieces' order (DuckDB reads a list of files in order),
          // joined on one thread in small row groups: the lake's threads, each writing a row group of
          // DuckDB's default 122,880 rows, ran out of memory joining 100,000 traces.
          for (const [i, rowGroup] of PARQUET_ROW_GROUPS.entries()) {
            const join = `COPY (SELECT * FROM read_parquet([${written.map(quoted).join(', ')}])) TO ${quoted(file)} (${COPY_OPTIONS.parquet}, ROW_GROUP_SIZE ${rowGroup})`;
            try {
              await lake.scratch((scratch) => scratch.run(join));
              break;
            } catch (err) {
              if (!outOfMemory(err) || i === PARQUET_ROW_GROUPS.length - 1) throw err;
              await rm(file, { force: true });
            }
          }
        } else {
          await writeFile(file, header);
          for (const path of written) await pipeline(createReadStream(path), createWriteStream(file, { flags: 'a' }));
        }
        return { rows, bytes: (await stat(file)).size, location: file };
      } finally {
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
async function csvHeader(connection: DuckDBConnection, selection: ExportJob['selection']): Promise<string> {
  const statement = exportSql(duckdb, { ...selection, startMs: 0, endMs: 0, nested: false });
  const reader = await connection.runAndReadAll(`SELECT * FROM (${statement.sql}) LIMIT 0`, statement.params);
  return reader.columnNames().join(',');
}
