import { isDeepStrictEqual } from 'node:util';
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapConcurrently, PER_TRACE_CALLS_AT_ONCE } from '../domain/concurrency.ts';
import type { Order, PageInput, Total } from '../domain/paging/page.ts';
import { backoff } from '../domain/retry.ts';
import type {
  LargeSession,
  SessionQuery,
  SessionRecord,
  SessionsRepository,
  SessionTrace,
  SessionTraceQuery,
  StoredSession,
} from '../domain/sessions/ports.ts';
import {
  LARGE_SESSION_TRACES,
  listingOf,
  type SessionFigures,
  type SessionListing,
  type SessionTraceFigures,
  sessionFiguresFold,
} from '../domain/sessions/sessions.ts';
import type { StoredTraceSummary } from '../domain/spans/ports.ts';
import type { TraceSummary } from '../domain/spans/summary.ts';
import { batchGet, batchWrite, putRequests } from './batch.ts';
import { type Db, isConditionFailure, written } from './client.ts';
import * as keys from './keys.ts';
import { SESSION_TRACE_PREFIX, stripKeys, timeSortKey } from './keys.ts';
import { countItems, readPage, type Source, TRAFFIC_COUNT_BUDGET } from './pages.ts';
import { TABLE } from './table.ts';
import { randomToken, storedSummary, timeRangeCondition, traceFilterCondition, traceScopeCondition, updateUnlessNewer } from './traces.ts';
import { inTurn } from './turns.ts';

const MAX_ATTEMPTS = 12;
/** Which of two copies of a trace is its latest: the higher revision, then the more spans. */
const newer = (a: Item, b: Item) =>
  Number(a['revision']) > Number(b['revision']) || (a['revision'] === b['revision'] && Number(a['spanCount']) > Number(b['spanCount']));
/** The index entry's expiry is moved forward at most once a day per session, not with every trace. */
const INDEX_EXPIRY_SLACK_SECONDS = 86_400;
/**
 * The items of a session's partition a worker's refresh reads first: its index entry, its refresh
 * note and its figures sort before its traces, so this page tells a large session (whose figures
 * count more than `LARGE_SESSION_TRACES`) from one small enough to recompute, and holds the whole of
 * most sessions.
 */
const FIRST_PAGE_ITEMS = 16;
/**
 * What a refresh reads of each item of a session's partition: the fields its figures are computed
 * from, the figures, the index entry's listing, the note's due time, and what picks a trace's latest
 * copy and deletes the others (not the summaries' texts, lists and metadata, which a large session
 * would otherwise hold in memory for every trace).
 */
const REFRESH_FIELDS = [
  ...['PK', 'SK', 'traceId', 'revision', 'spanCount', 'writeId', 'expiresAt', 'dueAtMs', 'version'],
  ...Object.keys({
    startTimeMs: true,
    endTimeMs: true,
    agentId: true,
    agentName: true,
    userId: true,
    status: true,
    inputTokens: true,
    outputTokens: true,
    cost: true,
    sessionId: true,
    firstSeenMs: true,
    lastSeenMs: true,
    traceCount: true,
    errorCount: true,
    totalTokens: true,
    durationMs: true,
  } satisfies Record<Exclude<keyof SessionTraceFigures | keyof SessionFigures, 'traceId'>, true>),
];
const refreshProjection = {
  ProjectionExpression: REFRESH_FIELDS.map((_, i) => `#f${i}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(REFRESH_FIELDS.map((field, i) => [`#f${i}`, field])),
};

type Item = Record<string, unknown>;

/** What a refresh reads of a session: its figures, what its index entry lists it under, and its traces' figures. */
interface SessionItems {
  current?: SessionRecord;
  entry?: { listing: SessionListing; expiresAt: number };
  /** Its figures recomputed from its traces; undefined when it has none left. */
  figures?: SessionFigures;
  /** When its last trace expires. */
  expiresAt: number;
}

/** How a refresh reads a session: whole (every trace, whatever its size), or as a worker does, stopping at a large session's first page. */
interface RefreshOptions {
  whole?: boolean;
  /** Traces taken out: every copy of each is deleted (a whole read). */
  dropped?: ReadonlySet<string>;
  /** The index entry, when it needs writing, is answered for the caller to write. */
  deferEntry?: boolean;
  /**
   * The figures are written (a new version) even when they are unchanged: after a copy at a trace's
   * old start was deleted, so that a recount that read past the trace's new start before it was put,
   * and reaches its old one after it went, fails its write and reads again instead of leaving the
   * trace out.
   */
  rewrite?: boolean;
}

const sameListing = (a: SessionListing, b: SessionListing) => a.firstSeenMs === b.firstSeenMs && a.agentId === b.agentId && a.userId === b.userId;
/**
 * Whether a refresh writes the index entry after the figures: when what the session is listed under
 * changed, when the entry is missing (a refresh that stopped between the two writes is completed by
 * the next one), or when the session would outlive it by more than a day.
 */
const needsListing = (figures: SessionFigures, entry: SessionItems['entry'], expiresAt: number) =>
  !entry || !sameListing(entry.listing, listingOf(figures)) || entry.expiresAt < expiresAt - INDEX_EXPIRY_SLACK_SECONDS;
const sameFigures = (a: SessionFigures, b: SessionFigures) => (Object.keys(b) as Array<keyof SessionFigures>).every((field) => a[field] === b[field]);

/** A session's index entry as the repository writes it: listed by first-seen time for the tenant, its agent and its user. */
export function sessionIndexItem(tenantId: string, figures: SessionFigures, version: number, expiresAt: number): Item {
  const { gsi1, gsi2, gsi3 } = TABLE.indexes;
  const sortKey = timeSortKey(figures.firstSeenMs, figures.sessionId);
  return {
    ...keys.sessionIndex(tenantId, figures.sessionId),
    [gsi1.partitionKey]: keys.tenantCollection(tenantId, 'SESSIONS'),
    [gsi1.sortKey]: sortKey,
    ...(figures.agentId ? { [gsi2.partitionKey]: keys.agentCollection(tenantId, figures.agentId, 'SESSIONS'), [gsi2.sortKey]: sortKey } : {}),
    ...(figures.userId ? { [gsi3.partitionKey]: keys.userCollection(tenantId, figures.userId, 'SESSIONS'), [gsi3.sortKey]: sortKey } : {}),
    entity: 'sessionIndex',
    sessionId: figures.sessionId,
    ...listingOf(figures),
    aggregateVersion: version,
    expiresAt,
  };
}

/** A session's figures item as the repository writes it. */
export const sessionItem = (tenantId: string, record: SessionRecord, expiresAt: number): Item => ({
  ...keys.session(tenantId, record.sessionId),
  entity: 'session',
  ...record,
  expiresAt,
});

/** A trace's contribution to its session (a copy of its summary), as the repository writes and rewrites it; each put adds a new `writeId`. */
export const sessionTraceItem = (tenantId: string, summary: TraceSummary & { sessionId: string }, revision: number, expiresAt: number): Item => ({
  ...keys.sessionTrace(tenantId, summary.sessionId, summary.startTimeMs, summary.traceId),
  entity: 'sessionTrace',
  ...summary,
  tenantId,
  revision,
  expiresAt,
});

/** An index entry a refresh left for its caller to write, with the version of the figures it lists. */
interface DueEntry {
  sessionId: string;
  version: number;
  item: Item;
}

/**
 * Sessions, maintained at ingestion. Each trace that names a session has a contribution in the
 * session's partition (a copy of its summary, keyed by start time so the session's traces read in
 * order); the session's figures are recomputed from a strongly consistent read of the partition
 * (figures, index entry and contributions in one query) and written conditional on a version
 * (concurrent workers retry), and its index entry, which lists it by first-seen time for the tenant,
 * its agent and its user, is written only when what it is listed under changes. A worker reads only
 * the first page of a large session (more than `LARGE_SESSION_TRACES`), answering it for a refresh
 * queued with a delay (`refreshQueued`), which a note in the partition announces to later workers.
 *
 * The contributions and the index entries of a batch are written together (BatchWriteItem), which
 * takes no condition, so each is checked after it is written against what it copies: a contribution
 * against its trace's summary, an index entry against its session's figures. Every writer writes
 * those first, so one that still matches means any later change is followed by its own writer's
 * copy; one that does not is written again, on a condition, from what is stored now. Deleting a
 * trace goes the other way: the purge marks the summary as being deleted, takes the trace out of
 * every session the marked summary names, then deletes the trace, its summary last (a purge stopped
 * midway finds the trace again); a worker's copy checked after the mark deletes itself, and one
 * checked before it was written before the removals, which take it out. A trace that moves to
 * another session leaves the old one (out, then the summary that moves it, then out once more,
 * copied back if it moved back meanwhile), and a copy whose trace's summary names another session
 * by the check is deleted.
 */
export function sessionsRepository(db: Db): SessionsRepository {
  const { doc, tableName: TableName } = db;

  /**
   * Deletes a trace's copy unless it was put again since: each put gives it a new `writeId`, which a
   * rewrite from the summary keeps, so a copy that a late worker rewrote from a summary it read before
   * a delete or a move goes too. `atRevision`, for a copy judged stale by its revision (an older copy
   * of a trace whose start moved): also unless it was rewritten since, which may have made it the
   * trace's newest. Only such a copy can have been put before copies had a `writeId`: it is deleted at
   * its revision.
   */
  const deleteCopy = (copy: Item, { atRevision = false } = {}) => {
    const conditions = [
      ...(copy['writeId'] !== undefined ? [['writeId = :w', ':w', copy['writeId']] as const] : []),
      ...(atRevision ? [['revision = :r', ':r', copy['revision']] as const] : []),
    ];
    return written(
      doc.send(
        new DeleteCommand({
          TableName,
          Key: { PK: copy['PK'], SK: copy['SK'] },
          ConditionExpression: conditions.map(([condition]) => condition).join(' AND '),
          ExpressionAttributeValues: Object.fromEntries(conditions.map(([, name, value]) => [name, value])),
        }),
      ),
    );
  };

  /** Deletes a trace's copy at the start its summary had before `revision`, unless that copy is as new. */
  const deleteReplaced = (tenantId: string, summary: SessionTrace['summary'], startMs: number, revision: number) =>
    written(
      doc.send(
        new DeleteCommand({
          TableName,
          Key: keys.sessionTrace(tenantId, summary.sessionId, startMs, summary.traceId),
          ConditionExpression: 'revision < :r',
          ExpressionAttributeValues: { ':r': revision },
        }),
      ),
    );

  /**
   * The session's items, read together with a strongly consistent query of its partition, page by
   * page: its figures, its index entry, and its traces' figures recomputed from their contributions,
   * the latest of each trace (older ones, of a trace whose start moved, are deleted), without the
   * `dropped` traces, whose every copy is deleted. Unless the read is `whole`, a session whose figures
   * count more than `LARGE_SESSION_TRACES` traces is answered as large from the first page, with the
   * refresh queued for it.
   *
   * What it holds while it reads does not grow with the session's items but with its traces' ids: a
   * pass keeps the figures so far and the ids it has seen. A trace found with more than one copy (its
   * start moved, and the older copy is still there) is counted on a second pass, from its copies alone,
   * which that pass keeps, and its older copies are deleted; a second pass reads the whole partition
   * again, so a session without such copies is read once. A trace whose start moves during the last
   * pass is counted there at most once: by its copy read first, or not at all when the pass went past
   * its new start before that copy was put and reached its old one after that copy went. Its worker
   * then puts it right: for a large session it queues the next refresh (it wrote its copy after this
   * refresh took the note off); for a small one it writes the figures again (`rewrite`), which fails
   * this recount's write, so that it reads again.
   */
  async function readSession(tenantId: string, sessionId: string, { whole = false, dropped }: RefreshOptions): Promise<SessionItems | LargeSession> {
    const { SK: recordSk } = keys.session(tenantId, sessionId);
    const { SK: indexSk } = keys.sessionIndex(tenantId, sessionId);
    const { SK: noteSk } = keys.sessionRefreshNote(tenantId, sessionId);
    let copied = new Set<string>();
    for (let lastPass = false; ; lastPass = true) {
      const fold = sessionFiguresFold(sessionId);
      const seen = new Set<string>();
      const foundCopied = new Set<string>();
      const copies = new Map<string, Item[]>();
      const gone: Item[] = [];
      let record: Item | undefined;
      let entry: Item | undefined;
      let expiresAt = 0;
      let ExclusiveStartKey: Item | undefined;
      let firstPage = true;
      do {
        const firstOfWorker = firstPage && !whole && dropped === undefined;
        const page = await doc.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': keys.sessionPartition(tenantId, sessionId) },
            ConsistentRead: true,
            ...refreshProjection,
            ...(firstOfWorker ? { Limit: FIRST_PAGE_ITEMS } : {}),
            ExclusiveStartKey,
          }),
        );
        ExclusiveStartKey = page.LastEvaluatedKey;
        firstPage = false;
        const items = page.Items ?? [];
        for (const item of items) {
          const sk = String(item['SK']);
          if (sk === recordSk) record = item;
          else if (sk === indexSk) entry = item;
          if (!sk.startsWith(SESSION_TRACE_PREFIX)) continue;
          const traceId = String(item['traceId']);
          if (dropped?.has(traceId)) gone.push(item);
          else if (copied.has(traceId)) copies.set(traceId, [...(copies.get(traceId) ?? []), item]);
          else if (seen.has(traceId)) foundCopied.add(traceId);
          else {
            seen.add(traceId);
            fold.add(item as unknown as SessionTraceFigures);
            expiresAt = Math.max(expiresAt, Number(item['expiresAt']));
          }
        }
        if (firstOfWorker && ExclusiveStartKey && record && Number(record['traceCount']) > LARGE_SESSION_TRACES) {
          const note = items.find((item) => item['SK'] === noteSk);
          return { sessionId, traceCount: Number(record['traceCount']), refreshDueAtMs: note ? Number(note['dueAtMs']) : null };
        }
      } while (ExclusiveStartKey);
      // A trace whose start moves while the last pass reads is counted there at most once; its
      // worker puts that right (see above).
      if (foundCopied.size > 0 && !lastPass) {
        copied = foundCopied;
        continue;
      }
      const stale: Item[] = [];
      for (const traceCopies of copies.values()) {
        const latest = traceCopies.reduce((a, b) => (newer(b, a) ? b : a));
        stale.push(...traceCopies.filter((item) => item !== latest));
        fold.add(latest as unknown as SessionTraceFigures);
        expiresAt = Math.max(expiresAt, Number(latest['expiresAt']));
      }
      // Every copy of a dropped trace goes, whatever its start and whoever rewrites it meanwhile.
      await Promise.all([
        ...stale.map((item) => deleteCopy(item, { atRevision: true })),
        ...gone.map((item) => doc.send(new DeleteCommand({ TableName, Key: { PK: item['PK'], SK: item['SK'] } }))),
      ]);
      const figures = fold.result();
      return {
        ...(record ? { current: stripKeys<SessionRecord>(record) } : {}),
        ...(entry ? { entry: { listing: listingOf(entry as unknown as SessionFigures), expiresAt: Number(entry['expiresAt']) } } : {}),
        ...(figures ? { figures } : {}),
        expiresAt,
      };
    }
  }

  /**
   * Recomputes the session's figures, or answers it as large (see `readSession`). Its index entry,
   * when it needs writing, is written here (on the condition that it is not newer) or, with
   * `deferEntry`, answered for the caller to write.
   */
  async function refreshOnce(
    tenantId: string,
    sessionId: string,
    options: RefreshOptions = {},
  ): Promise<{ due: DueEntry } | { large: LargeSession } | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const read = await readSession(tenantId, sessionId, options);
      if ('traceCount' in read) return { large: read };
      const { current, entry, figures, expiresAt } = read;
      const version = (current?.version ?? 0) + 1;
      const versionCondition = current
        ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': current.version } }
        : { ConditionExpression: 'attribute_not_exists(PK)' };
      try {
        if (!figures) {
          if (!current && !entry) return undefined;
          if (current) await doc.send(new DeleteCommand({ TableName, Key: keys.session(tenantId, sessionId), ...versionCondition }));
          await doc.send(new DeleteCommand({ TableName, Key: keys.sessionIndex(tenantId, sessionId) }));
          return undefined;
        }
        // A redelivered message changes nothing: no write, unless the index entry is behind.
        const unchanged = !options.rewrite && current !== undefined && sameFigures(current, figures);
        if (!unchanged) await doc.send(new PutCommand({ TableName, Item: sessionItem(tenantId, { ...figures, version }, expiresAt), ...versionCondition }));
        const listed = unchanged ? current.version : version;
        if (!needsListing(figures, entry, expiresAt)) return undefined;
        const item = sessionIndexItem(tenantId, figures, listed, expiresAt);
        if (options.deferEntry) return { due: { sessionId, version: listed, item } };
        // When the condition fails, a newer version was written meanwhile: its writer lists the session.
        await written(
          doc.send(
            new PutCommand({
              TableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(PK) OR aggregateVersion <= :v',
              ExpressionAttributeValues: { ':v': listed },
            }),
          ),
        );
        return undefined;
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new Error(`session ${sessionId} of tenant ${tenantId} stayed contended for ${MAX_ATTEMPTS} attempts`);
  }

  const refreshInTurn = (tenantId: string, sessionId: string, options?: RefreshOptions) =>
    inTurn(`session|${tenantId}|${sessionId}`, () => refreshOnce(tenantId, sessionId, options));

  /**
   * Writes the index entries a batch's refreshes left, together, then reads the figures they list: a
   * session whose figures moved on meanwhile may have had a newer entry overwritten, and is refreshed again.
   */
  async function writeIndexEntries(tenantId: string, due: readonly DueEntry[]): Promise<void> {
    if (due.length === 0) return;
    await batchWrite(db, putRequests(due.map((d) => d.item)));
    const figures = await batchGet(
      db,
      due.map((d) => keys.session(tenantId, d.sessionId)),
      true,
      ['sessionId', 'version'],
    );
    const versions = new Map(figures.map((item) => [String(item['sessionId']), Number(item['version'])]));
    const moved = due.filter((d) => versions.get(d.sessionId) !== d.version);
    // Whole: a session listed a moment ago as small may have grown past large since, and its entry needs writing now.
    await mapConcurrently(moved, PER_TRACE_CALLS_AT_ONCE, (d) => refreshInTurn(tenantId, d.sessionId, { whole: true }));
  }

  /**
   * Writes the contributions together, then reads the summaries they copy: a contribution whose
   * summary is not the one it copied is written again from the summary, on the revision condition
   * and only over a copy that is there (`updateUnlessNewer`); the summary's alert marks are added to
   * it (a set, so a mark the judge adds meanwhile stays); one whose summary is gone (its trace
   * deleted meanwhile), being deleted, or names another session (or none: the trace moved), is
   * deleted unless it was written again since (`deleteCopy`). Answers the sessions in which a
   * trace's copy at the start its summary replaced was to be deleted (by it, or before it).
   */
  async function putTraces(tenantId: string, traces: readonly SessionTrace[], expiresAt: number): Promise<ReadonlySet<string>> {
    const movedIn = new Set<string>();
    if (traces.length === 0) return movedIn;
    const copies = traces.map(({ summary, revision, replacedStartMs }) => ({
      summary,
      revision,
      replacedStartMs,
      item: { ...sessionTraceItem(tenantId, summary, revision, expiresAt), writeId: randomToken() } as Item,
    }));
    await batchWrite(db, putRequests(copies.map((c) => c.item)));
    const stored = await batchGet(
      db,
      traces.map(({ summary }) => keys.traceSummary(tenantId, summary.traceId)),
      true,
    );
    const byTrace = new Map(stored.map((item) => [String(item['traceId']), item]));
    await mapConcurrently(copies, PER_TRACE_CALLS_AT_ONCE, async ({ summary, revision, replacedStartMs, item: copy }) => {
      // At once, not left to the session's refresh, which a large session has only some time later.
      if (replacedStartMs !== undefined && replacedStartMs !== summary.startTimeMs) {
        // Answered whether or not this delete was the one that took it: a recount may have deleted the
        // old copy first, while another recount had already read past the new one.
        movedIn.add(summary.sessionId);
        await deleteReplaced(tenantId, summary, replacedStartMs, revision);
      }
      const item = byTrace.get(summary.traceId);
      const latest = item && storedSummary(item);
      // The copy goes when its trace is gone or being deleted (the mark stays until the summary goes),
      // or moved to another session (or to none) since this copy's summary: the caller's refresh of the
      // copy's session recomputes it without the trace, and the summary's writer copies the trace into
      // its new session. Even when another worker rewrote it meanwhile from a summary read before.
      if (!latest || latest.deleting || latest.summary.sessionId !== summary.sessionId) {
        await deleteCopy(copy);
        return;
      }
      const { sessionId } = summary;
      const rewrite = sessionTraceItem(tenantId, { ...latest.summary, sessionId }, latest.revision, expiresAt);
      if (latest.revision !== revision || !isDeepStrictEqual(latest.summary, summary)) await updateUnlessNewer(db, rewrite, { mustExist: true });
      const marks = item['alertTypes'];
      if (marks !== undefined) {
        await written(
          doc.send(
            new UpdateCommand({
              TableName,
              Key: { PK: rewrite['PK'], SK: rewrite['SK'] },
              UpdateExpression: 'ADD alertTypes :marks',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':marks': marks },
            }),
          ),
        );
      }
    });
    return movedIn;
  }

  const listSources = (tenantId: string, q: SessionQuery): Source[] => {
    if (q.userId !== undefined) {
      const filter =
        q.agentId === undefined ? undefined : { expression: '#sagent = :sagent', names: { '#sagent': 'agentId' }, values: { ':sagent': q.agentId } };
      return [{ index: 'gsi3', partition: keys.userCollection(tenantId, q.userId, 'SESSIONS'), ...(filter ? { filter } : {}) }];
    }
    if (q.agentId !== undefined) return [{ index: 'gsi2', partition: keys.agentCollection(tenantId, q.agentId, 'SESSIONS') }];
    return [{ index: 'gsi1', partition: keys.tenantCollection(tenantId, 'SESSIONS') }];
  };

  const traceRange = (q: { startMs?: number; endMs?: number }) => {
    const { lower, upper } = timeRangeCondition(q.startMs, q.endMs);
    return { lower: `${SESSION_TRACE_PREFIX}${lower}`, upper: `${SESSION_TRACE_PREFIX}${upper}` };
  };
  const traceSource = (tenantId: string, sessionId: string, q: SessionTraceQuery): Source => {
    const filter = traceScopeCondition({ agentId: q.agentId, status: q.status });
    return { index: 'table', partition: keys.sessionPartition(tenantId, sessionId), ...(filter ? { filter } : {}) };
  };

  return {
    putTraces,

    async refresh(tenantId: string, sessionIds: readonly string[], rewrite: ReadonlySet<string> = new Set()): Promise<LargeSession[]> {
      const refreshed = await mapConcurrently(sessionIds, PER_TRACE_CALLS_AT_ONCE, (sessionId) =>
        refreshInTurn(tenantId, sessionId, { deferEntry: true, rewrite: rewrite.has(sessionId) }),
      );
      await writeIndexEntries(
        tenantId,
        refreshed.flatMap((r) => (r && 'due' in r ? [r.due] : [])),
      );
      return refreshed.flatMap((r) => (r && 'large' in r ? [r.large] : []));
    },

    async noteRefreshQueued(tenantId: string, refreshes: ReadonlyArray<{ sessionId: string; dueAtMs: number }>): Promise<void> {
      await Promise.all(
        refreshes.map(({ sessionId, dueAtMs }) =>
          written(
            doc.send(
              new PutCommand({
                TableName,
                Item: {
                  ...keys.sessionRefreshNote(tenantId, sessionId),
                  entity: 'sessionRefreshNote',
                  dueAtMs,
                  // It counts until its refresh is due; the table's expiry takes it a day later if no refresh did.
                  expiresAt: Math.ceil(dueAtMs / 1000) + INDEX_EXPIRY_SLACK_SECONDS,
                },
                ConditionExpression: 'attribute_not_exists(dueAtMs) OR dueAtMs < :due',
                ExpressionAttributeValues: { ':due': dueAtMs },
              }),
            ),
          ),
        ),
      );
    },

    async refreshQueued(tenantId: string, sessionId: string, dueAtMs: number): Promise<void> {
      await written(
        doc.send(
          new DeleteCommand({
            TableName,
            Key: keys.sessionRefreshNote(tenantId, sessionId),
            ConditionExpression: 'dueAtMs <= :due',
            ExpressionAttributeValues: { ':due': dueAtMs },
          }),
        ),
      );
      await refreshInTurn(tenantId, sessionId, { whole: true });
    },

    async removeTraces(tenantId: string, sessionId: string, traceIds: readonly string[]): Promise<void> {
      await refreshInTurn(tenantId, sessionId, { dropped: new Set(traceIds) });
    },

    async removeMovedTrace(tenantId: string, sessionId: string, traceId: string): Promise<void> {
      await refreshInTurn(tenantId, sessionId, { dropped: new Set([traceId]) });
      // Strongly consistent: a mover-back whose summary this read misses writes its copy after the removal.
      const [item] = await batchGet(db, [keys.traceSummary(tenantId, traceId)], true);
      if (!item) return;
      const { summary, revision, expiresAt } = storedSummary(item);
      if (summary.sessionId !== sessionId) return;
      await putTraces(tenantId, [{ summary: { ...summary, sessionId }, revision }], expiresAt);
      await refreshInTurn(tenantId, sessionId, { whole: true });
    },

    /** The figures and the refresh note sort next to each other, before the traces: one query reads both. */
    async get(tenantId: string, sessionId: string): Promise<StoredSession | undefined> {
      const note = keys.sessionRefreshNote(tenantId, sessionId);
      const figures = keys.session(tenantId, sessionId);
      const { Items = [] } = await doc.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :note AND :figures',
          ExpressionAttributeValues: { ':pk': figures.PK, ':note': note.SK, ':figures': figures.SK },
        }),
      );
      const record = Items.find((item) => item['SK'] === figures.SK);
      if (!record) return undefined;
      const dueAtMs = Items.find((item) => item['SK'] === note.SK)?.['dueAtMs'];
      return { ...stripKeys<SessionRecord>(record), ...(dueAtMs !== undefined ? { refreshDueAtMs: Number(dueAtMs) } : {}) };
    },

    /** One page of sessions, most recently started first, with their figures. */
    async page(tenantId: string, q: SessionQuery, page: PageInput) {
      const result = await readPage(db, { sources: listSources(tenantId, q), range: timeRangeCondition(q.startMs, q.endMs), page });
      const found = await batchGet(
        db,
        result.items.map((i) => keys.session(tenantId, String(i['sessionId']))),
      );
      const byId = new Map(found.map((item) => [String(item['sessionId']), stripKeys<SessionRecord>(item)]));
      const items = result.items.flatMap((i) => byId.get(String(i['sessionId'])) ?? []);
      return { ...result, items };
    },

    count(tenantId: string, q: SessionQuery): Promise<Total> {
      return countItems(db, { sources: listSources(tenantId, q), range: timeRangeCondition(q.startMs, q.endMs), budget: TRAFFIC_COUNT_BUDGET });
    },

    /** One page of a session's traces (their summaries), in start order. */
    async tracesPage(tenantId: string, sessionId: string, q: SessionTraceQuery, page: PageInput, order: Order) {
      const result = await readPage(db, { sources: [traceSource(tenantId, sessionId, q)], range: traceRange(q), filter: traceFilterCondition(q), page, order });
      return { ...result, items: result.items.map((i) => stripKeys<StoredTraceSummary>(i)) };
    },

    countTraces(tenantId: string, sessionId: string, q: SessionTraceQuery): Promise<Total> {
      return countItems(db, {
        sources: [traceSource(tenantId, sessionId, q)],
        range: traceRange(q),
        filter: traceFilterCondition(q),
        budget: TRAFFIC_COUNT_BUDGET,
      });
    },
  };
}
