import {
  AthenaClient,
  type ColumnInfo,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  GetQueryRuntimeStatisticsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { mayPassLater } from '../aws-errors.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import { athena } from '../domain/lake/dialects.ts';
import { type LakeMaintenance, LakeQueryError, type LakeReader, LakeScanLimitError } from '../domain/lake/ports.ts';
import type { LakeRow } from '../domain/lake/schema.ts';
import type { SqlParam, SqlStatement } from '../domain/lake/sql.ts';

/**
 * The lake's reader on AWS: Athena over the Iceberg tables, in the lake's workgroup, which caps the
 * bytes any one query may scan and writes results, encrypted, to a bucket that forgets them.
 *
 * Values reach Athena as execution parameters, which it binds as literals in the WHERE clauses
 * (https://docs.aws.amazon.com/athena/latest/ug/querying-with-prepared-statements.html): a string goes
 * as a quoted literal with its quotes doubled, so it can only ever be a string. DELETE takes no
 * execution parameters; the builder's deletes carry only ids the service made and numbers, which are
 * checked against `SAFE_LITERAL` before they are written into the statement.
 */
export interface AthenaLakeSettings {
  database: string;
  workgroup: string;
  /** A query still running after this long is stopped. */
  timeoutMs: number;
  /** Identical queries within this many minutes reuse the earlier result (paging back, refreshing). */
  reuseMinutes?: number;
}

export interface AthenaRun {
  queryExecutionId: string;
  /** Bytes the query scanned (what Athena bills). */
  scannedBytes: number;
  /** The S3 URI of the result file (a SELECT's CSV). */
  outputLocation: string | undefined;
}

const SAFE_LITERAL = /^[A-Za-z0-9_.:@-]{1,128}$/;

export const literalOf = (value: SqlParam): string => {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new LakeQueryError(`not a finite number: ${value}`);
    return Number.isInteger(value) ? value.toFixed(0) : String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
};

/** The statement with its parameters written in, for the statements Athena cannot parameterize. */
export function inlined(statement: SqlStatement): string {
  let i = 0;
  const sql = statement.sql.replace(/\?/g, () => {
    const value = statement.params[i++];
    if (value === undefined) throw new LakeQueryError('a statement has more placeholders than parameters');
    if (typeof value === 'string' && !SAFE_LITERAL.test(value)) throw new LakeQueryError('only ids and numbers may be written into a statement');
    return literalOf(value);
  });
  if (i !== statement.params.length) throw new LakeQueryError('a statement has more parameters than placeholders');
  return sql;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cellValue(text: string | undefined, column: ColumnInfo | undefined): LakeRow[string] {
  if (text === undefined) return null;
  switch (column?.Type) {
    case 'bigint':
    case 'integer':
    case 'smallint':
    case 'tinyint':
    case 'double':
    case 'float':
    case 'real':
    case 'decimal':
      return Number(text);
    case 'boolean':
      return text === 'true';
    default:
      return text;
  }
}

/**
 * One call to Athena. A failure that may pass later (throttling, a fault of Athena's, the network)
 * becomes ServiceUnavailableError (a route answers 503 with Retry-After), any other refusal — of a
 * statement or setting of ours — LakeQueryError. Athena's words stay in the cause: logged, never shown.
 */
async function calling<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (mayPassLater(err)) throw new ServiceUnavailableError(2, { cause: err });
    throw new LakeQueryError(`Athena refused ${what}`, { cause: err });
  }
}

export function athenaLake(
  settings: AthenaLakeSettings,
  client: AthenaClient = new AthenaClient({}),
): LakeReader &
  LakeMaintenance & {
    run(statement: SqlStatement, options?: { inline?: boolean; reuse?: boolean }): Promise<AthenaRun>;
    rowsWritten(queryExecutionId: string): Promise<number>;
  } {
  /** Starts a statement and waits for it; answers its id and what it scanned, or throws why it failed. */
  async function run(statement: SqlStatement, { inline = false, reuse = false } = {}): Promise<AthenaRun> {
    const command = new StartQueryExecutionCommand({
      QueryString: inline ? inlined(statement) : statement.sql,
      ...(!inline && statement.params.length > 0 && { ExecutionParameters: statement.params.map(literalOf) }),
      WorkGroup: settings.workgroup,
      QueryExecutionContext: { Database: settings.database },
      ...(reuse &&
        settings.reuseMinutes && { ResultReuseConfiguration: { ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: settings.reuseMinutes } } }),
    });
    const { QueryExecutionId: queryExecutionId } = await calling('a query', () => client.send(command));
    if (!queryExecutionId) throw new LakeQueryError('Athena started a query without an id');
    const deadline = Date.now() + settings.timeoutMs;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      const { QueryExecution } = await calling("a query's state", () => client.send(new GetQueryExecutionCommand({ QueryExecutionId: queryExecutionId })));
      const state = QueryExecution?.Status?.State;
      if (state === 'SUCCEEDED') {
        return {
          queryExecutionId,
          scannedBytes: QueryExecution?.Statistics?.DataScannedInBytes ?? 0,
          outputLocation: QueryExecution?.ResultConfiguration?.OutputLocation,
        };
      }
      if (state === 'FAILED' || state === 'CANCELLED') {
        const reason = QueryExecution?.Status?.StateChangeReason ?? state;
        if (/bytes scanned limit/i.test(reason)) throw new LakeScanLimitError(reason);
        if (QueryExecution?.Status?.AthenaError?.Retryable) throw new ServiceUnavailableError(2, { cause: new LakeQueryError(reason) });
        throw new LakeQueryError(`Athena query ${queryExecutionId} ${state.toLowerCase()}: ${reason}`);
      }
      if (Date.now() + wait > deadline) {
        await client.send(new StopQueryExecutionCommand({ QueryExecutionId: queryExecutionId })).catch(() => undefined);
        throw new ServiceUnavailableError(5, { cause: new LakeQueryError(`Athena query ${queryExecutionId} took longer than ${settings.timeoutMs} ms`) });
      }
      await pause(wait);
    }
  }

  return {
    dialect: athena,
    run,
    async query(statement) {
      const { queryExecutionId } = await run(statement, { reuse: true });
      const rows: LakeRow[] = [];
      let columns: ColumnInfo[] | undefined;
      let NextToken: string | undefined;
      let header = true;
      do {
        const page = await calling("a query's results", () =>
          client.send(new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, MaxResults: 1000, NextToken })),
        );
        columns ??= page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
        for (const row of page.ResultSet?.Rows ?? []) {
          // The first row of a SELECT's results names the columns.
          if (header) {
            header = false;
            continue;
          }
          rows.push(Object.fromEntries(columns.map((column, i) => [column.Name ?? String(i), cellValue(row.Data?.[i]?.VarCharValue, column)])));
        }
        NextToken = page.NextToken;
      } while (NextToken);
      return rows;
    },
    async execute(statements) {
      for (const statement of statements) await run(statement, { inline: true });
    },
    async rowsWritten(queryExecutionId) {
      const { QueryRuntimeStatistics } = await calling("a query's statistics", () =>
        client.send(new GetQueryRuntimeStatisticsCommand({ QueryExecutionId: queryExecutionId })),
      );
      return QueryRuntimeStatistics?.Rows?.OutputRows ?? 0;
    },
  };
}
