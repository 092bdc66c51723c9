import type { SqlDialect } from '../domain/lake/dialects.ts';
import type { LakeRows } from '../domain/lake/records.ts';
import type { LakeRow } from '../domain/lake/schema.ts';
import type { SqlStatement } from '../domain/lake/sql.ts';

/**
 * The trace lake: every finished trace, its spans and signals, for search and exports over all of a
 * tenant's history. On AWS rows go through Amazon Data Firehose into Apache Iceberg tables in S3
 * (catalogued in Glue) and are read with Athena; locally they live in DuckDB under DATA_DIR.
 */
export interface LakeWriter {
  /**
   * Puts rows in the lake; a row replaces the row with the same key (a trace written again is one row
   * set, the latest). Resolves once the lake (or Firehose, which then delivers) has taken every row.
   */
  write(rows: LakeRows): Promise<void>;
}

export interface LakeReader {
  readonly dialect: SqlDialect;
  /** Runs a read the query builder wrote; rows as column → value. */
  query(statement: SqlStatement): Promise<LakeRow[]>;
}

export interface LakeMaintenance {
  readonly dialect: SqlDialect;
  /** Runs the builder's deletes (an agent's rows, expired rows), one after another. */
  execute(statements: readonly SqlStatement[]): Promise<void>;
}

/** The lake refused or could not run a query: a fault of ours or of the engine, never of the request. */
export class LakeQueryError extends Error {}

/** A query would scan more than the workgroup allows one query: the request must ask for less (dates, agent). */
export class LakeScanLimitError extends LakeQueryError {}

/** Firehose did not take some rows after retries: the ingest message fails and SQS delivers it again. */
export class LakeWriteError extends Error {}
