import {
  AthenaClient,
  GetQueryExecutionCommand,
  type GetQueryExecutionCommandOutput,
  GetQueryResultsCommand,
  GetQueryRuntimeStatisticsCommand,
  InternalServerException,
  InvalidRequestException,
  type QueryExecutionState,
  StartQueryExecutionCommand,
  type StartQueryExecutionCommandInput,
  StopQueryExecutionCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { beforeEach, describe, expect, it } from 'vitest';
import { athenaLake, inlined } from '#shared/adapters/lake-athena.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { AppError, ServiceUnavailableError, ValidationError } from '#shared/domain/errors.ts';
import { athena } from '#shared/domain/lake/dialects.ts';
import { LakeQueryError, LakeScanLimitError } from '#shared/domain/lake/ports.ts';
import { parseSearchQuery } from '#shared/domain/lake/query.ts';
import { findTraces } from '#shared/domain/lake/search.ts';
import { expireSql, forgetAgentSql, spansOfTracesSql, traceSearchSql } from '#shared/domain/lake/sql.ts';

const client = mockClient(AthenaClient);
beforeEach(() => client.reset());

const metadata = { $metadata: {} };
const settings = { database: 'aos_lake', workgroup: 'aos_lake_wg', timeoutMs: 5000, reuseMinutes: 5 };
const lake = () => athenaLake(settings, new AthenaClient({}));
const TENANT = 'tnt_alpha';

/** What GetQueryExecution answers in a state, with the statistics and output of a finished query. */
const execution = (
  state: QueryExecutionState,
  extra: { reason?: string; retryable?: boolean; scanned?: number } = {},
): Partial<GetQueryExecutionCommandOutput> => ({
  QueryExecution: {
    QueryExecutionId: 'q-1',
    Status: {
      State: state,
      ...(extra.reason !== undefined && { StateChangeReason: extra.reason }),
      ...(extra.retryable !== undefined && { AthenaError: { ErrorCategory: extra.retryable ? 1 : 2, ErrorType: 1000, Retryable: extra.retryable } }),
    },
    Statistics: { DataScannedInBytes: extra.scanned ?? 0 },
    ResultConfiguration: { OutputLocation: 's3://aos-results/athena/q-1.csv' },
  },
});

/** Athena answering a query through these states, one per poll (the last repeats). */
function queryGoesThrough(...states: Array<Partial<GetQueryExecutionCommandOutput>>) {
  client.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
  let stub = client.on(GetQueryExecutionCommand);
  for (const state of states) stub = stub.resolvesOnce(state);
  stub.resolves(states.at(-1)!);
}

const started = () => client.commandCalls(StartQueryExecutionCommand).map((call) => call.args[0].input as StartQueryExecutionCommandInput);

const searchOf = (q: string) =>
  traceSearchSql(athena, {
    tenantId: TENANT,
    query: parseSearchQuery(q),
    startMs: 1_700_000_000_000,
    endMs: 1_702_592_000_000,
    nowMs: 1_702_592_000_000,
    limit: 51,
  });

describe('Athena lake reader: the statement it sends', () => {
  it('runs a search in the lake workgroup and database, its values as execution parameters, reusing a recent identical result', async () => {
    queryGoesThrough(execution('SUCCEEDED'));
    client.on(GetQueryResultsCommand).resolves({
      ResultSet: { Rows: [{ Data: [{ VarCharValue: 'trace_id' }] }], ResultSetMetadata: { ColumnInfo: [{ Name: 'trace_id', Type: 'varchar' }] } },
    });
    const statement = searchOf('refund agent:support-bot status:error');
    await lake().query(statement);
    expect(client).toHaveReceivedCommandExactlyOnceWith(StartQueryExecutionCommand, {
      QueryString: statement.sql,
      ExecutionParameters: statement.params.map((p) => (typeof p === 'string' ? `'${p}'` : String(p))),
      WorkGroup: 'aos_lake_wg',
      QueryExecutionContext: { Database: 'aos_lake' },
      ResultReuseConfiguration: { ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: 5 } },
    });
  });

  it.each([
    `"'; DROP TABLE lake_traces; --"`,
    `agent:"x' OR '1'='1" tool:"') UNION SELECT * FROM lake_spans --"`,
    `session:"tnt_other' OR tenant_id <> '" attr.k:"'||'"`,
  ])('sends request text only as a quoted parameter, never in the SQL, and the tenant first: %s', async (q) => {
    queryGoesThrough(execution('SUCCEEDED'));
    client.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
    await lake().query(searchOf(q));
    const [input] = started();
    expect(input!.QueryString).not.toContain("'");
    expect(input!.QueryString).not.toMatch(/DROP|UNION|tnt_other/);
    expect(input!.QueryString).toMatch(/ FROM lake_traces WHERE tenant_id = \? AND start_ms >= /);
    expect(input!.ExecutionParameters![0]).toBe(`'${TENANT}'`);
    expect(input!.QueryString!.split('?').length - 1).toBe(input!.ExecutionParameters!.length);
    // Every string parameter is one quoted literal: its own quotes doubled, so it cannot end early.
    for (const parameter of input!.ExecutionParameters!) {
      if (parameter.startsWith("'")) expect(parameter.slice(1, -1).replaceAll("''", '')).not.toContain("'");
      else expect(parameter).toMatch(/^-?\d+(\.\d+)?$/);
    }
  });

  it("reads a page's spans within the tenant and the hits' days", async () => {
    queryGoesThrough(execution('SUCCEEDED'));
    client.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
    await lake().query(
      spansOfTracesSql(athena, TENANT, [
        { traceId: 't-1', startMs: 5 },
        { traceId: "t-2'", startMs: 6 },
      ]),
    );
    const [input] = started();
    expect(input!.QueryString).toMatch(/WHERE tenant_id = \? AND trace_start_ms IN \(CAST\(\? AS BIGINT\), CAST\(\? AS BIGINT\)\) AND trace_id IN \(\?, \?\)/);
    expect(input!.ExecutionParameters).toEqual([`'${TENANT}'`, '5', '6', "'t-1'", "'t-2'''"]);
  });

  it('writes the values into a DELETE, which takes no parameters, only when they are ids or numbers', async () => {
    queryGoesThrough(execution('SUCCEEDED'));
    await lake().execute([...forgetAgentSql(athena, TENANT, 'agt_1'), ...expireSql(athena, 1_702_592_000_000)]);
    const sent = started();
    expect(sent.map((s) => s.QueryString)).toEqual([
      `DELETE FROM lake_traces WHERE tenant_id = '${TENANT}' AND agent_id = 'agt_1'`,
      `DELETE FROM lake_spans WHERE tenant_id = '${TENANT}' AND agent_id = 'agt_1'`,
      `DELETE FROM lake_signals WHERE tenant_id = '${TENANT}' AND agent_id = 'agt_1'`,
      'DELETE FROM lake_traces WHERE expires_ms <= CAST(1702592000000 AS BIGINT)',
      'DELETE FROM lake_spans WHERE expires_ms <= CAST(1702592000000 AS BIGINT)',
      'DELETE FROM lake_signals WHERE expires_ms <= CAST(1702592000000 AS BIGINT)',
    ]);
    expect(sent.every((s) => s.ExecutionParameters === undefined && s.ResultReuseConfiguration === undefined && s.WorkGroup === 'aos_lake_wg')).toBe(true);

    client.reset();
    for (const agentId of ["agt' OR '1'='1", 'agt_1; DROP TABLE x', 'a'.repeat(129)]) {
      await expect(lake().execute(forgetAgentSql(athena, TENANT, agentId))).rejects.toBeInstanceOf(LakeQueryError);
    }
    expect(client).not.toHaveReceivedCommand(StartQueryExecutionCommand);
    expect(() => inlined({ sql: 'SELECT ?', params: [] })).toThrow(LakeQueryError);
    expect(() => inlined({ sql: 'SELECT 1', params: [1] })).toThrow(LakeQueryError);
    expect(() => inlined({ sql: 'SELECT ?', params: [Number.NaN] })).toThrow(LakeQueryError);
  });
});

describe('Athena lake reader: waiting for a query', () => {
  it('polls through QUEUED and RUNNING until SUCCEEDED, and reports the bytes scanned and the result file', async () => {
    queryGoesThrough(execution('QUEUED'), execution('RUNNING'), execution('RUNNING'), execution('SUCCEEDED', { scanned: 123_456_789 }));
    const run = await lake().run(searchOf('refund'));
    expect(run).toEqual({ queryExecutionId: 'q-1', scannedBytes: 123_456_789, outputLocation: 's3://aos-results/athena/q-1.csv' });
    expect(client).toHaveReceivedCommandTimes(GetQueryExecutionCommand, 4);
    expect(client).toHaveReceivedCommandWith(GetQueryExecutionCommand, { QueryExecutionId: 'q-1' });
    expect(client).not.toHaveReceivedCommand(StopQueryExecutionCommand);
  });

  it.each(['FAILED', 'CANCELLED'] as const)('turns a query stopped at the workgroup scan limit (%s) into LakeScanLimitError', async (state) => {
    queryGoesThrough(execution('RUNNING'), execution(state, { reason: 'Bytes scanned limit was exceeded' }));
    const err = await lake()
      .run(searchOf('refund'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LakeScanLimitError);
  });

  it('turns a failure Athena marks retryable into ServiceUnavailableError, whose message says nothing of Athena', async () => {
    queryGoesThrough(execution('FAILED', { reason: 'Amazon Athena experienced an internal error while executing this query', retryable: true }));
    const err = await lake()
      .run(searchOf('refund'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as Error).message).not.toMatch(/athena|internal/i);
    expect(((err as Error).cause as Error).message).toMatch(/internal error/);
  });

  it.each(['FAILED', 'CANCELLED'] as const)("turns any other %s query into LakeQueryError, a fault that is not the request's", async (state) => {
    queryGoesThrough(execution(state, { reason: "COLUMN_NOT_FOUND: line 1:8: Column 'x' cannot be resolved", retryable: false }));
    const err = await lake()
      .run(searchOf('refund'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LakeQueryError);
    expect(err).not.toBeInstanceOf(LakeScanLimitError);
  });

  it('stops a query that outlasts its time and answers ServiceUnavailableError', async () => {
    queryGoesThrough(execution('RUNNING'));
    client.on(StopQueryExecutionCommand).resolves({});
    const startedAt = Date.now();
    const err = await athenaLake({ ...settings, timeoutMs: 200 }, new AthenaClient({}))
      .run(searchOf('refund'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(client).toHaveReceivedCommandExactlyOnceWith(StopQueryExecutionCommand, { QueryExecutionId: 'q-1' });
  });

  it('refuses an answer without a query id', async () => {
    client.on(StartQueryExecutionCommand).resolves({});
    await expect(lake().run(searchOf('refund'))).rejects.toBeInstanceOf(LakeQueryError);
  });
});

describe('Athena lake reader: errors of the calls themselves', () => {
  const calls: Array<[string, (failure: Error) => void]> = [
    ['StartQueryExecution', (failure) => client.on(StartQueryExecutionCommand).rejects(failure)],
    ['GetQueryExecution', (failure) => client.on(GetQueryExecutionCommand).rejects(failure)],
    ['GetQueryResults', (failure) => client.on(GetQueryResultsCommand).rejects(failure)],
  ];

  it.each(calls)('maps throttling and a server fault of %s to ServiceUnavailableError, the cause kept', async (_name, failWith) => {
    for (const failure of [
      new TooManyRequestsException({ message: 'Rate exceeded', ...metadata }),
      new InternalServerException({ message: 'We encountered an internal error', ...metadata }),
    ]) {
      client.reset();
      queryGoesThrough(execution('SUCCEEDED'));
      client.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
      failWith(failure);
      const err = await lake()
        .query(searchOf('refund'))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceUnavailableError);
      expect((err as Error).cause).toBe(failure);
      expect((err as Error).message).not.toContain(failure.message);
    }
  });

  it.each(calls)("maps a refusal of %s (a statement or setting of ours) to LakeQueryError, Athena's words only in the cause", async (_name, failWith) => {
    queryGoesThrough(execution('SUCCEEDED'));
    client.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
    const refusal = new InvalidRequestException({ message: 'line 1:1: mismatched input', AthenaErrorCode: 'MALFORMED_QUERY', ...metadata });
    failWith(refusal);
    const err = await lake()
      .query(searchOf('refund'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LakeQueryError);
    expect((err as Error).cause).toBe(refusal);
  });
});

describe('Athena lake reader: results', () => {
  it('reads every page of results, the header row once, each value by its column type, NULL as null', async () => {
    queryGoesThrough(execution('SUCCEEDED'));
    const columns = [
      { Name: 'trace_id', Type: 'varchar' },
      { Name: 'span_count', Type: 'bigint' },
      { Name: 'cost', Type: 'double' },
      { Name: 'text_cut', Type: 'boolean' },
      { Name: 'session_id', Type: 'varchar' },
    ];
    const row = (...values: Array<string | undefined>) => ({ Data: values.map((v) => (v === undefined ? {} : { VarCharValue: v })) });
    client
      .on(GetQueryResultsCommand)
      .resolvesOnce({
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: columns },
          Rows: [row('trace_id', 'span_count', 'cost', 'text_cut', 'session_id'), row('t-1', '7', '0.25', 'true', 's-1')],
        },
        NextToken: 'page-2',
      })
      .resolvesOnce({
        ResultSet: { ResultSetMetadata: { ColumnInfo: columns }, Rows: [row('t-2', '3', '1e-3', 'false', undefined), row('trace_id', '0', '0', 'false', '')] },
        NextToken: 'page-3',
      })
      .resolvesOnce({ ResultSet: { ResultSetMetadata: { ColumnInfo: columns }, Rows: [] } });
    const rows = await lake().query(searchOf('refund'));
    expect(rows).toEqual([
      { trace_id: 't-1', span_count: 7, cost: 0.25, text_cut: true, session_id: 's-1' },
      { trace_id: 't-2', span_count: 3, cost: 0.001, text_cut: false, session_id: null },
      // A row whose values look like the header is data: only the first row of the first page is the header.
      { trace_id: 'trace_id', span_count: 0, cost: 0, text_cut: false, session_id: '' },
    ]);
    const pages = client.commandCalls(GetQueryResultsCommand).map((c) => c.args[0].input);
    expect(pages).toEqual([
      { QueryExecutionId: 'q-1', MaxResults: 1000, NextToken: undefined },
      { QueryExecutionId: 'q-1', MaxResults: 1000, NextToken: 'page-2' },
      { QueryExecutionId: 'q-1', MaxResults: 1000, NextToken: 'page-3' },
    ]);
  });

  it('answers the rows a statement wrote from its runtime statistics', async () => {
    client
      .on(GetQueryRuntimeStatisticsCommand)
      .resolvesOnce({ QueryRuntimeStatistics: { Rows: { OutputRows: 4321 } } })
      .resolves({});
    expect(await lake().rowsWritten('q-1')).toBe(4321);
    expect(await lake().rowsWritten('q-1')).toBe(0);
    expect(client).toHaveReceivedCommandWith(GetQueryRuntimeStatisticsCommand, { QueryExecutionId: 'q-1' });
  });
});

describe('Athena lake reader under the search (findTraces): failures reach the client as the domain says', () => {
  const ports = async () => ({
    lake: lake(),
    store: {} as never,
    clock: { now: () => new Date(1_702_592_000_000) },
    signing: (
      (material) => async () =>
        material
    )(await signingMaterialFromSeed('a-test-seed-of-enough-length-for-the-derivation')),
  });
  const find = async () => findTraces(TENANT, 'pro', parseSearchQuery('refund'), { limit: 50 }, await ports());

  it('a search stopped at the scan limit is a 400 on startDate asking for less', async () => {
    queryGoesThrough(execution('CANCELLED', { reason: 'Bytes scanned limit was exceeded' }));
    const err = await find().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^startDate: .*narrow the dates/);
  });

  it('Athena throttling is a 503 to retry, and a refusal of ours a fault (500 without detail)', async () => {
    client.on(StartQueryExecutionCommand).rejects(new TooManyRequestsException({ message: 'Rate exceeded', ...metadata }));
    await expect(find()).rejects.toBeInstanceOf(ServiceUnavailableError);
    client.reset();
    queryGoesThrough(execution('FAILED', { reason: 'TABLE_NOT_FOUND: line 1:1: Table lake_traces does not exist', retryable: false }));
    const err = await find().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LakeQueryError);
    expect(err).not.toBeInstanceOf(AppError);
  });
});
