import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryRuntimeStatisticsCommand,
  StartQueryExecutionCommand,
  type StartQueryExecutionCommandInput,
} from '@aws-sdk/client-athena';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { athenaExportRunner, exportTableOf, LINK_LIFETIME_SECONDS, QUERY_RESULTS_PREFIX } from '#shared/adapters/exports-athena.ts';
import { athenaLake } from '#shared/adapters/lake-athena.ts';
import type { ExportJob } from '#shared/domain/lake/exports.ts';
import type { ExportRecord } from '#shared/domain/lake/ports.ts';
import { LakeQueryError, LakeScanLimitError } from '#shared/domain/lake/ports.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';

const athenaClient = mockClient(AthenaClient);
const s3Client = mockClient(S3Client);
beforeEach(() => {
  athenaClient.reset();
  s3Client.reset();
});

const BUCKET = 'aos-lake-results-123456789012-us-east-1';
const settings = { bucket: BUCKET, exportsDatabase: 'aos_lake_exports' };
const s3 = () =>
  new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' } });
const runner = () => athenaExportRunner(athenaLake({ database: 'aos_lake', workgroup: 'aos_lake_wg', timeoutMs: 5000 }, new AthenaClient({})), settings, s3());

const job = (format: ExportJob['format'], q = ''): ExportJob => ({
  tenantId: 'tnt_alpha',
  exportId: 'exp_01JX',
  format,
  selection: { tenantId: 'tnt_alpha', query: parseSearchQuery(q), startMs: 1_700_000_000_000, endMs: 1_702_592_000_000, nowMs: 1_702_592_000_000 },
});

/** Athena finishing every query at once, each with its own id, the SELECT's CSV result in the workgroup's location. */
function athenaFinishesEverything(rows = 2500) {
  let n = 0;
  athenaClient.on(StartQueryExecutionCommand).callsFake(() => ({ QueryExecutionId: `q-${++n}` }));
  athenaClient.on(GetQueryExecutionCommand).callsFake(({ QueryExecutionId }: { QueryExecutionId: string }) => ({
    QueryExecution: {
      QueryExecutionId,
      Status: { State: 'SUCCEEDED' },
      Statistics: { DataScannedInBytes: 1 },
      ResultConfiguration: { OutputLocation: `s3://${BUCKET}/${QUERY_RESULTS_PREFIX}${QueryExecutionId}.csv` },
    },
  }));
  athenaClient.on(GetQueryRuntimeStatisticsCommand).resolves({ QueryRuntimeStatistics: { Rows: { OutputRows: rows } } });
}

const statements = () => athenaClient.commandCalls(StartQueryExecutionCommand).map((c) => c.args[0].input as StartQueryExecutionCommandInput);

describe('Athena exports: CSV', () => {
  it("is the export's SELECT, scoped by the tenant with bound values; the file is the query's own CSV result", async () => {
    athenaFinishesEverything();
    s3Client.on(HeadObjectCommand).resolves({ ContentLength: 987_654 });
    const file = await runner().run(job('csv', `"payment declined" agent:"x' OR '1'='1"`));
    expect(file).toEqual({ rows: 2500, bytes: 987_654, location: `s3://${BUCKET}/${QUERY_RESULTS_PREFIX}q-1.csv` });
    const [select] = statements();
    expect(statements()).toHaveLength(1);
    expect(select!.QueryString).toMatch(/^WITH t AS \(SELECT .* FROM lake_traces WHERE tenant_id = \? AND start_ms >= /);
    expect(select!.QueryString).not.toContain("'");
    expect(select!.ExecutionParameters![0]).toBe("'tnt_alpha'");
    // The spans and signals of the selection are read within the tenant too.
    expect(select!.QueryString!.match(/tenant_id = \?/g)).toHaveLength(3);
    expect(select!.ExecutionParameters!.filter((p) => p === "'tnt_alpha'")).toHaveLength(3);
    expect(select!.ResultReuseConfiguration).toBeUndefined();
    expect(s3Client).toHaveReceivedCommandWith(HeadObjectCommand, { Bucket: BUCKET, Key: `${QUERY_RESULTS_PREFIX}q-1.csv` });
    expect(athenaClient).toHaveReceivedCommandWith(GetQueryRuntimeStatisticsCommand, { QueryExecutionId: 'q-1' });
  });

  it('puts a single quote before every text cell that starts like a spreadsheet formula, and leaves numbers alone', async () => {
    athenaFinishesEverything();
    s3Client.on(HeadObjectCommand).resolves({ ContentLength: 1 });
    await runner().run(job('csv'));
    const [select] = statements();
    const formulaLeads = 'chr(61), chr(43), chr(45), chr(64), chr(9), chr(13)';
    for (const column of ['trace_id', 'agent_name', 'name', 'model', 'session_id', 'user_id', 'experiment_id', 'variant']) {
      expect(select!.QueryString).toContain(
        `CASE WHEN substr(t.${column}, 1, 1) IN (${formulaLeads}) THEN chr(39) || t.${column} ELSE t.${column} END AS ${column}`,
      );
    }
    for (const column of ['duration_ms', 'input_tokens', 'total_tokens', 'cost']) expect(select!.QueryString).toContain(`t.${column} AS ${column},`);
  });
});

describe.each(['jsonl', 'parquet'] as const)('Athena exports: %s', (format) => {
  const table = `aos_lake_exports.${exportTableOf('exp_01JX')}`;

  it('is a CREATE TABLE AS SELECT of one bucket, written where the workgroup puts results (it enforces its location, so the statement names none), its table dropped before and after', async () => {
    athenaFinishesEverything(1234);
    s3Client.on(ListObjectsV2Command).resolves({
      Contents: [
        { Key: `${QUERY_RESULTS_PREFIX}tables/q-2/`, Size: 0 },
        { Key: `${QUERY_RESULTS_PREFIX}tables/q-2/20260101_000000_00001_abcde_bucket-00000`, Size: 4_444_444 },
      ],
    });
    const file = await runner().run(job(format, 'refund tool:payments*'));
    expect(file).toEqual({
      rows: 1234,
      bytes: 4_444_444,
      location: `s3://${BUCKET}/${QUERY_RESULTS_PREFIX}tables/q-2/20260101_000000_00001_abcde_bucket-00000`,
    });
    const [dropBefore, create, dropAfter] = statements();
    expect(statements()).toHaveLength(3);
    expect(dropBefore!.QueryString).toBe(`DROP TABLE IF EXISTS ${table}`);
    expect(dropAfter!.QueryString).toBe(`DROP TABLE IF EXISTS ${table}`);
    expect(create!.QueryString).toMatch(
      new RegExp(
        `^CREATE TABLE ${table} WITH \\(format = '${format === 'jsonl' ? 'JSON' : 'PARQUET'}', write_compression = '(NONE|SNAPPY)', bucketed_by = ARRAY\\['trace_id'\\], bucket_count = 1\\) AS WITH t AS \\(SELECT `,
      ),
    );
    expect(create!.QueryString).not.toContain('external_location');
    // Only a CSV file opens in a spreadsheet: the other formats keep text as it was sent.
    expect(create!.QueryString).not.toContain('chr(39)');
    expect(create!.QueryString).toContain('FROM lake_traces WHERE tenant_id = ? AND start_ms >= ');
    expect(create!.ExecutionParameters![0]).toBe("'tnt_alpha'");
    expect(create!.QueryString!.split('?').length - 1).toBe(create!.ExecutionParameters!.length);
    expect(s3Client).toHaveReceivedCommandExactlyOnceWith(ListObjectsV2Command, { Bucket: BUCKET, Prefix: `${QUERY_RESULTS_PREFIX}tables/q-2/` });
    expect(athenaClient).toHaveReceivedCommandWith(GetQueryRuntimeStatisticsCommand, { QueryExecutionId: 'q-2' });
  });

  it('refuses to hand out anything but exactly one file', async () => {
    athenaFinishesEverything();
    const file = (n: number) => ({ Key: `${QUERY_RESULTS_PREFIX}tables/q-2/part-${n}`, Size: 10 });
    s3Client
      .on(ListObjectsV2Command)
      .resolvesOnce({ Contents: [file(1), file(2)] })
      .resolvesOnce({});
    await expect(runner().run(job(format))).rejects.toBeInstanceOf(LakeQueryError);
    await expect(runner().run(job(format))).rejects.toBeInstanceOf(LakeQueryError);
  });
});

describe('Athena exports: failures', () => {
  it('lets the scan limit through as LakeScanLimitError (the export then says to export less) and lists nothing', async () => {
    athenaClient.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athenaClient
      .on(GetQueryExecutionCommand)
      .resolves({ QueryExecution: { Status: { State: 'CANCELLED', StateChangeReason: 'Bytes scanned limit was exceeded' } } });
    await expect(runner().run(job('csv'))).rejects.toBeInstanceOf(LakeScanLimitError);
    expect(s3Client).not.toHaveReceivedCommand(HeadObjectCommand);
  });

  it('refuses a result location that is not in S3', async () => {
    athenaClient.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athenaClient
      .on(GetQueryExecutionCommand)
      .resolves({ QueryExecution: { Status: { State: 'SUCCEEDED' }, ResultConfiguration: { OutputLocation: 'https://example.com/x.csv' } } });
    await expect(runner().run(job('csv'))).rejects.toBeInstanceOf(LakeQueryError);
  });
});

describe('Athena exports: the link to the file', () => {
  const record = (format: ExportRecord['format']): ExportRecord => ({
    id: 'exp_01JX',
    tenantId: 'tnt_alpha',
    status: 'succeeded',
    format,
    startDate: '2026-01-01T00:00:00.000Z',
    endDate: '2026-01-31T00:00:00.000Z',
    agentId: null,
    q: null,
    rows: 10,
    bytes: 100,
    location: `s3://${BUCKET}/${QUERY_RESULTS_PREFIX}tables/q-2/file-00000`,
    error: null,
    createdAt: '2026-02-01T00:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    deleteAfter: 1_800_000_000,
  });

  it('is a GET presigned for one hour, for that object only, saving it under the export id with its content type', async () => {
    const nowMs = Date.parse('2026-02-01T10:00:00.000Z');
    const { url, expiresAt } = await runner().link(record('parquet'), nowMs);
    expect(expiresAt).toBe(nowMs + LINK_LIFETIME_SECONDS * 1000);
    expect(LINK_LIFETIME_SECONDS).toBe(3600);
    const link = new URL(url);
    expect(link.hostname).toBe(`${BUCKET}.s3.us-east-1.amazonaws.com`);
    expect(link.pathname).toBe(`/${QUERY_RESULTS_PREFIX}tables/q-2/file-00000`);
    expect(link.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(link.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(link.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request$/);
    expect(link.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(link.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(link.searchParams.get('response-content-disposition')).toBe('attachment; filename="exp_01JX.parquet"');
    expect(link.searchParams.get('response-content-type')).toBe('application/vnd.apache.parquet');
    // Signing reads nothing from S3.
    expect(s3Client.calls()).toHaveLength(0);
  });

  it('answers the download route with a redirect to such a link', async () => {
    const answer = await runner().download(record('csv'));
    expect('redirect' in answer && new URL(answer.redirect).searchParams.get('response-content-disposition')).toBe('attachment; filename="exp_01JX.csv"');
  });
});
