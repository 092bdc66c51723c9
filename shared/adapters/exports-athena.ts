import { createHash } from 'node:crypto';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { athena } from '../domain/lake/dialects.ts';
import { CONTENT_TYPES, type ExportJob, type ExportRunner, fileNameOf } from '../domain/lake/exports.ts';
import { type ExportRecord, LakeQueryError } from '../domain/lake/ports.ts';
import { type ExportFormat, exportSql } from '../domain/lake/sql.ts';
import type { athenaLake } from './lake-athena.ts';

/**
 * Exports on AWS, written by Athena into the results bucket (encrypted; its lifecycle deletes them
 * after 7 days) and handed out as presigned URLs valid one hour.
 *
 * - CSV: the export's SELECT; Athena writes every SELECT's result as one RFC 4180 CSV file with a
 *   header, which is the export (spans and signals as JSON text).
 * - JSON lines and Parquet: a CREATE TABLE AS SELECT into a table of the exports database with one
 *   bucket, so Athena writes exactly one file (UNLOAD would write several, which a single download link
 *   cannot carry); the table is dropped afterwards, its file kept. The workgroup enforces its result
 *   location, and Athena then refuses a CTAS that names one (`external_location`): it writes the
 *   table's files under `<the workgroup's location>tables/<query id>/`.
 *
 * Either way Athena streams the rows to S3 itself: the worker only starts the query and waits.
 */
export interface AthenaExportSettings {
  /** The results bucket, which also holds the exports (under `exports/`). */
  bucket: string;
  /** The Glue database that holds each export's table while it is written. */
  exportsDatabase: string;
}

export const LINK_LIFETIME_SECONDS = 3600;
/** Where in the results bucket the lake's workgroup has Athena write every query's results (the lake stack sets it). */
export const QUERY_RESULTS_PREFIX = 'athena/';

type Athena = ReturnType<typeof athenaLake>;

/** A name only this export's table has: Athena folds names to lower case, so ids are hashed. */
export const exportTableOf = (exportId: string) => `export_${createHash('sha256').update(exportId).digest('hex').slice(0, 24)}`;

const CTAS_FORMAT: Record<Exclude<ExportFormat, 'csv'>, string> = {
  jsonl: "format = 'JSON', write_compression = 'NONE'",
  parquet: "format = 'PARQUET', write_compression = 'SNAPPY'",
};

const parseS3Uri = (uri: string) => {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) throw new LakeQueryError(`not an S3 location: ${uri}`);
  return { bucket: match[1]!, key: match[2]! };
};

export function athenaExportRunner(lake: Athena, settings: AthenaExportSettings, s3: S3Client = new S3Client({})): ExportRunner {
  async function sizeOf(bucket: string, key: string): Promise<number> {
    return (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength ?? 0;
  }

  async function viaSelect(job: ExportJob) {
    const { queryExecutionId, outputLocation } = await lake.run(exportSql(athena, { ...job.selection, nested: false }));
    if (!outputLocation) throw new LakeQueryError(`Athena query ${queryExecutionId} reported no output location`);
    const { bucket, key } = parseS3Uri(outputLocation);
    return { rows: await lake.rowsWritten(queryExecutionId), bytes: await sizeOf(bucket, key), location: outputLocation };
  }

  async function viaTable(job: ExportJob, format: Exclude<ExportFormat, 'csv'>) {
    const table = `${settings.exportsDatabase}.${exportTableOf(job.exportId)}`;
    const select = exportSql(athena, { ...job.selection, nested: true });
    // A retried job starts from a clean slate: a table left by a stopped attempt is dropped (its files stay, under that attempt's query id).
    await lake.run({ sql: `DROP TABLE IF EXISTS ${table}`, params: [] }, { inline: true });
    const { queryExecutionId } = await lake.run({
      sql: `CREATE TABLE ${table} WITH (${CTAS_FORMAT[format]}, bucketed_by = ARRAY['trace_id'], bucket_count = 1) AS ${select.sql}`,
      params: select.params,
    });
    await lake.run({ sql: `DROP TABLE IF EXISTS ${table}`, params: [] }, { inline: true });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: settings.bucket, Prefix: `${QUERY_RESULTS_PREFIX}tables/${queryExecutionId}/` }));
    const files = (listed.Contents ?? []).filter((o) => o.Key && (o.Size ?? 0) > 0);
    if (files.length !== 1) throw new LakeQueryError(`export ${job.exportId} wrote ${files.length} files, expected one`);
    return { rows: await lake.rowsWritten(queryExecutionId), bytes: files[0]!.Size ?? 0, location: `s3://${settings.bucket}/${files[0]!.Key}` };
  }

  const presign = (record: ExportRecord) => {
    const { bucket, key } = parseS3Uri(record.location!);
    const command = new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${fileNameOf(record)}"`,
      ResponseContentType: CONTENT_TYPES[record.format],
    });
    return getSignedUrl(s3, command, { expiresIn: LINK_LIFETIME_SECONDS });
  };

  return {
    run: (job) => (job.format === 'csv' ? viaSelect(job) : viaTable(job, job.format)),
    async link(record, nowMs) {
      return { url: await presign(record), expiresAt: nowMs + LINK_LIFETIME_SECONDS * 1000 };
    },
    async download(record) {
      return { redirect: await presign(record) };
    },
  };
}
