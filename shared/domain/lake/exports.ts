import { NotFoundError, RateLimitedError, ServiceUnavailableError } from '../errors.ts';
import { requireFeature } from '../plans/entitlements.ts';
import type { Clock, Ids, QueuePort } from '../ports.ts';
import type { Store } from '../store.ts';
import { type CursorKey, decodeCursor, encodeCursor } from './cursor.ts';
import { LAKE_QUEUE, type LakeMessage } from './messages.ts';
import { type ExportRecord, LakeScanLimitError } from './ports.ts';
import { formatSearchQuery, parseSearchQuery } from './query.ts';
import { planOf } from './search.ts';
import type { ExportFormat, ExportSelection } from './sql.ts';

/**
 * Exports: a tenant's traces of a date range (optionally one agent's, optionally matching a search) as
 * one file of JSON lines, CSV or Parquet, one row per trace with its spans and signals. A request
 * queues the job; the lake worker writes the file, streaming (never holding the export in memory);
 * the file can be downloaded for EXPORT_LIFETIME_DAYS.
 */
export interface ExportJob {
  tenantId: string;
  exportId: string;
  format: ExportFormat;
  selection: Omit<ExportSelection, 'nested'>;
}

export interface ExportFile {
  rows: number;
  bytes: number;
  /** Where the file is: an S3 URI, or a local path. */
  location: string;
}

/** Where the export's file is written and how it is handed out: S3 and Athena on AWS, DuckDB and a file locally. */
export interface ExportRunner {
  run(job: ExportJob): Promise<ExportFile>;
  /** A link to the file and until when it works (AWS: a presigned URL, one hour; locally: the download route). */
  link(record: ExportRecord, nowMs: number): Promise<{ url: string; expiresAt: number }>;
  /** What the download route answers: a redirect to the file, or the file to stream. */
  download(record: ExportRecord): Promise<{ redirect: string } | { file: string; bytes: number; contentType: string; filename: string }>;
}

export const EXPORT_LIFETIME_DAYS = 7;
/** Exports a tenant may have queued or running at once. */
export const MAX_ACTIVE_EXPORTS = 3;
const CURSOR_KIND = 'exports';

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};
export const fileNameOf = (record: Pick<ExportRecord, 'id' | 'format'>) => `${record.id}.${record.format}`;

export interface ExportRequest {
  format: ExportFormat;
  startDate: Date;
  /** Inclusive. */
  endDate: Date;
  agentId?: string;
  q?: string;
}

export interface CreateExportPorts {
  store: Pick<Store, 'tenants' | 'agents' | 'exports'>;
  queue: QueuePort;
  clock: Clock;
  ids: Ids;
}

export interface ReadExportPorts {
  store: Pick<Store, 'exports'>;
  exportRunner: ExportRunner;
  clock: Clock;
}

/** An export as the API shows it; the link only once its file is written. */
export async function exportView(record: ExportRecord, ports: ReadExportPorts) {
  const link = record.status === 'succeeded' ? await ports.exportRunner.link(record, ports.clock.now().getTime()) : undefined;
  return {
    id: record.id,
    status: record.status,
    format: record.format,
    startDate: record.startDate,
    endDate: record.endDate,
    agentId: record.agentId,
    q: record.q,
    rows: record.rows,
    bytes: record.bytes,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    finishedAt: record.finishedAt,
    ...(link && { downloadUrl: link.url, expiresAt: new Date(link.expiresAt).toISOString() }),
    ...(record.error !== null && { error: record.error }),
  };
}

const isLive = (record: ExportRecord, nowMs: number) => record.deleteAfter * 1000 > nowMs;
const isActive = (record: ExportRecord, nowMs: number) => isLive(record, nowMs) && (record.status === 'queued' || record.status === 'running');

/**
 * How long a slot is held at most: longer than the lake queue keeps delivering an export's message (its
 * visibility timeout, 90 minutes, times its 3 receives: 4.5 hours; `shared/catalog.ts`, checked by
 * the slots' test), so a slot is not taken from an export still being retried, and one whose message
 * was dead-lettered holds it no longer.
 */
export const SLOT_HOLD_MS = 5 * 3_600_000;

/**
 * Takes one of the tenant's `MAX_ACTIVE_EXPORTS` slots for an export whose record is written, by
 * conditional writes, so that exports asked for at once cannot all pass a count (eight at once once
 * got seven in): a free slot or one whose hold ran out, else one whose export no longer waits or runs
 * (its worker gave it back late, or never; an export's record is written before its claim, so a
 * holder without one was given back). False when all are held.
 */
async function claimExportSlot(tenantId: string, exportId: string, nowMs: number, store: Pick<Store, 'exports'>): Promise<boolean> {
  const held = new Map((await store.exports.slots(tenantId)).map((s) => [s.slot, s]));
  const claim = (slot: number, replacing?: string) =>
    store.exports.claimSlot(tenantId, { slot, exportId, heldUntilMs: nowMs + SLOT_HOLD_MS }, nowMs, replacing);
  for (let slot = 0; slot < MAX_ACTIVE_EXPORTS; slot++) {
    const holder = held.get(slot);
    if ((!holder || holder.heldUntilMs <= nowMs) && (await claim(slot))) return true;
  }
  for (const holder of held.values()) {
    if (holder.slot >= MAX_ACTIVE_EXPORTS || holder.heldUntilMs <= nowMs) continue;
    const record = await store.exports.get(tenantId, holder.exportId);
    if ((!record || !isActive(record, nowMs)) && (await claim(holder.slot, holder.exportId))) return true;
  }
  return false;
}

/** Gives back the slot an export holds, once it no longer waits or runs. */
async function releaseExportSlot(tenantId: string, exportId: string, store: Pick<Store, 'exports'>): Promise<void> {
  const held = (await store.exports.slots(tenantId)).find((s) => s.exportId === exportId);
  if (held) await store.exports.releaseSlot(tenantId, held);
}

/** Queues an export (202): the plan's `exports`, a query that parses, an agent of the tenant, and a free slot among its running exports. */
export async function createExport(tenantId: string, request: ExportRequest, ports: CreateExportPorts) {
  requireFeature(await planOf(ports.store, tenantId), 'exports');
  const q = request.q === undefined || request.q.trim() === '' ? null : formatSearchQuery(parseSearchQuery(request.q));
  if (request.agentId && !(await ports.store.agents.get(tenantId, request.agentId))) throw new NotFoundError('Agent');
  const now = ports.clock.now();
  const record: ExportRecord = {
    id: ports.ids.next('xpt'),
    tenantId,
    status: 'queued',
    format: request.format,
    startDate: request.startDate.toISOString(),
    endDate: request.endDate.toISOString(),
    agentId: request.agentId ?? null,
    q,
    rows: null,
    bytes: null,
    location: null,
    error: null,
    createdAt: now.toISOString(),
    startedAt: null,
    finishedAt: null,
    deleteAfter: Math.floor(now.getTime() / 1000) + EXPORT_LIFETIME_DAYS * 86_400,
  };
  // The record first: a claim whose record is not written yet could pass for a slot given back.
  await ports.store.exports.create(record);
  if (!(await claimExportSlot(tenantId, record.id, now.getTime(), ports.store))) {
    await ports.store.exports.delete(tenantId, record.id);
    throw new RateLimitedError(60, `${MAX_ACTIVE_EXPORTS} exports are already queued or running; retry after 60 s`);
  }
  const message: LakeMessage = { kind: 'export', tenantId, exportId: record.id };
  try {
    await ports.queue.send(LAKE_QUEUE, [message]);
  } catch (err) {
    // Nothing will run it: the request answers 503 and leaves no export behind (a slot or record
    // left by a failing cleanup is given back by its hold, or passes for given back).
    await Promise.allSettled([releaseExportSlot(tenantId, record.id, ports.store), ports.store.exports.delete(tenantId, record.id)]);
    throw new ServiceUnavailableError(5, { cause: err });
  }
  return { id: record.id, status: record.status };
}

async function ownExport(tenantId: string, exportId: string, ports: Pick<ReadExportPorts, 'store' | 'clock'>): Promise<ExportRecord> {
  const record = await ports.store.exports.get(tenantId, exportId);
  // Another tenant's export id is as missing as an unknown one (the key holds the tenant).
  if (!record || !isLive(record, ports.clock.now().getTime())) throw new NotFoundError('Export');
  return record;
}

export async function getExport(tenantId: string, exportId: string, ports: ReadExportPorts) {
  return exportView(await ownExport(tenantId, exportId, ports), ports);
}

interface ExportsPosition {
  after: string;
}
const isExportsPosition = (p: unknown): p is ExportsPosition => typeof (p as ExportsPosition | null)?.after === 'string';

/** A page of the tenant's exports, newest first; `nextCursor` continues it. */
export async function listExports(tenantId: string, page: { limit: number; cursor?: string }, cursorKey: CursorKey, ports: ReadExportPorts) {
  const nowMs = ports.clock.now().getTime();
  const after = page.cursor ? decodeCursor(cursorKey, CURSOR_KIND, '', page.cursor, nowMs, isExportsPosition).after : undefined;
  const records = await ports.store.exports.page(tenantId, page.limit + 1, after);
  const shown = records.slice(0, page.limit);
  const last = shown.at(-1);
  const hasMore = records.length > page.limit;
  return {
    data: await Promise.all(shown.filter((r) => isLive(r, nowMs)).map((r) => exportView(r, ports))),
    pagination: {
      limit: page.limit,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor<ExportsPosition>(cursorKey, CURSOR_KIND, '', { after: `${last.createdAt}#${last.id}` }, nowMs) : null,
    },
  };
}

export async function exportDownload(tenantId: string, exportId: string, ports: ReadExportPorts) {
  const record = await ownExport(tenantId, exportId, ports);
  if (record.status !== 'succeeded') throw new NotFoundError(`Export file (the export is ${record.status})`);
  return ports.exportRunner.download(record);
}

export interface RunExportPorts {
  store: Pick<Store, 'exports'>;
  exportRunner: ExportRunner;
  clock: Clock;
  reportError: (message: string, err: unknown) => void;
}

/** Why an export failed, as the user reads it (the cause itself is logged, not shown). */
function failureOf(err: unknown): string {
  if (err instanceof LakeScanLimitError) return 'the export would read more than the lake allows one query to scan; export a shorter range or one agent';
  if (err instanceof ServiceUnavailableError) return 'the lake was busy; create the export again';
  return 'the export could not be written; create it again, and if it fails again contact support';
}

/**
 * Runs a queued export (the lake worker). A message delivered again finds the export running (the
 * worker stopped midway) and writes the file again, or finished, and does nothing.
 */
export async function runExport(message: Extract<LakeMessage, { kind: 'export' }>, ports: RunExportPorts): Promise<void> {
  const record = await ports.store.exports.get(message.tenantId, message.exportId);
  if (!record || record.status === 'succeeded' || record.status === 'failed') return;
  const running: ExportRecord = { ...record, status: 'running', startedAt: ports.clock.now().toISOString() };
  if (!(await ports.store.exports.replaceIfStatus(running, record.status))) return;
  const query = parseSearchQuery(record.q ?? '');
  const job: ExportJob = {
    tenantId: record.tenantId,
    exportId: record.id,
    format: record.format,
    selection: {
      tenantId: record.tenantId,
      query,
      startMs: Date.parse(record.startDate),
      endMs: Date.parse(record.endDate) + 1,
      nowMs: ports.clock.now().getTime(),
      ...(record.agentId !== null && { agentId: record.agentId }),
    },
  };
  let finished: ExportRecord;
  try {
    const file = await ports.exportRunner.run(job);
    finished = { ...running, status: 'succeeded', rows: file.rows, bytes: file.bytes, location: file.location, finishedAt: ports.clock.now().toISOString() };
  } catch (err) {
    ports.reportError('export failed', err);
    finished = { ...running, status: 'failed', error: failureOf(err), finishedAt: ports.clock.now().toISOString() };
  }
  if (await ports.store.exports.replaceIfStatus(finished, 'running')) await releaseExportSlot(record.tenantId, record.id, ports.store);
}
