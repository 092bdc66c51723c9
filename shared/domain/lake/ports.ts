import type { SqlDialect } from './dialects.ts';
import type { LakeRows } from './records.ts';
import type { LakeRow } from './schema.ts';
import type { ExportFormat, SqlStatement } from './sql.ts';

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

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** An export job and, once it has run, its file. */
export interface ExportRecord {
  id: string;
  tenantId: string;
  status: ExportStatus;
  format: ExportFormat;
  /** The selection: [startDate, endDate] (ISO), an agent, a query in the search language. */
  startDate: string;
  endDate: string;
  agentId: string | null;
  q: string | null;
  rows: number | null;
  bytes: number | null;
  /** Where the file is (an S3 key or a local path); never shown to clients. */
  location: string | null;
  /** Why it failed, in words for the user. */
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The record, and its file, go after this (epoch seconds; the item's TTL). */
  deleteAfter: number;
}

export interface ExportsRepository {
  create(e: ExportRecord): Promise<void>;
  get(tenantId: string, exportId: string): Promise<ExportRecord | undefined>;
  /** Replaces the record while it is still in the status it was read in (false: it moved meanwhile). */
  replaceIfStatus(next: ExportRecord, expected: ExportStatus): Promise<boolean>;
  delete(tenantId: string, exportId: string): Promise<void>;
  /** One page of a tenant's exports, newest first, after the export `after` (its createdAt#id) when paging on. */
  page(tenantId: string, limit: number, after?: string): Promise<ExportRecord[]>;
  /** The tenant's export slots that are held, read strongly consistent. */
  slots(tenantId: string): Promise<ExportSlot[]>;
  /**
   * Takes a slot for an export: one nobody holds or whose hold ran out, or, with `replacing`, the one
   * that export holds (or held, if it is free now). False when another took it first.
   */
  claimSlot(tenantId: string, claim: ExportSlot, nowMs: number, replacing?: string): Promise<boolean>;
  /** Gives back the slot the export holds, if it still does. */
  releaseSlot(tenantId: string, slot: ExportSlot): Promise<void>;
}

/** A place among a tenant's queued or running exports, held by one of them until it finishes or `heldUntilMs`. */
export interface ExportSlot {
  slot: number;
  exportId: string;
  heldUntilMs: number;
}
