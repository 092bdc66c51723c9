import { randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PageInput, Total } from '../domain/paging/page.ts';
import type { TraceAnomalies } from '../domain/profiles/ports.ts';
import {
  type CloseMarker,
  type Facets,
  type NewMove,
  type SessionMove,
  type StoredLog,
  type StoredSignal,
  type StoredSpanWrite,
  type StoredSummary,
  type StoredTraceSummary,
  type SummaryBasis,
  TRACE_STATES,
  type TraceContents,
  type TraceFreeFilters,
  type TraceQuery,
  type TraceState,
  type TracesRepository,
  traceState,
} from '../domain/spans/ports.ts';
import { spanGroupsOf } from '../domain/spans/span-groups.ts';
import { type StoredSpan, TRACE_QUIET_MS, type TraceStatus, type TraceSummary } from '../domain/spans/summary.ts';
import { batchGet, batchWrite, deleteRequests, putRequests, queryAll } from './batch.ts';
import { type Db, ifWritten, written } from './client.ts';
import * as keys from './keys.ts';
import { SPAN_GROUP_PREFIX, stripKeys, traceIndexKeys } from './keys.ts';
import { allOf, COUNT_BUDGET, type Condition, countItems, readPage, type Source, TRAFFIC_COUNT_BUDGET } from './pages.ts';
import { TABLE } from './table.ts';

/**
 * Facets stay one item under DynamoDB's 400 KB: a value longer than FACET_VALUE_CHARS is no facet (an
 * id or a sentence in a trace name), and a facet keeps its first FACET_VALUES_KEPT values.
 */
const FACET_VALUE_CHARS = 200;
const FACET_VALUES_KEPT = 200;

/** How long, and for how many tenants, a process trusts that the facet values it added are still stored. */
const FACETS_REMEMBERED_MS = 10 * 60_000;
const FACETS_REMEMBERED_TENANTS = 1000;

/** Per key, a set of values that is forgotten `ttlMs` after it was started; at most `maxKeys` keys, the oldest go first. */
function recentMemory<T>(ttlMs: number, maxKeys: number) {
  const sets = new Map<string, { since: number; values: Set<T> }>();
  return {
    of(key: string): Set<T> {
      const now = Date.now();
      const entry = sets.get(key);
      if (entry && now - entry.since < ttlMs) return entry.values;
      sets.delete(key);
      if (sets.size >= maxKeys) sets.delete(sets.keys().next().value!);
      const values = new Set<T>();
      sets.set(key, { since: now, values });
      return values;
    },
  };
}

const FACET_ATTRIBUTES = {
  models: 'models',
  kinds: 'kinds',
  toolNames: 'toolNames',
  errorTypes: 'errorTypes',
  traceNames: 'traceNames',
  tags: 'tags',
  statuses: 'statuses',
  signalNames: 'signalNames',
} as const satisfies Record<keyof Facets, string>;

/**
 * Spans are stored per trace and arrival: the spans of one trace that one message brought form one
 * item holding them compressed (a trace's spans repeat its prompts, names and attribute keys, so the
 * item is about a third of their JSON, and one write replaces one per span). The group id derives
 * from the span ids, so a redelivered message overwrites its own items.
 */
function spanGroupItems(tenantId: string, spans: readonly StoredSpan[], expiresAt: number, writtenAtMs: number) {
  return spanGroupsOf(spans).map(({ traceId, groupId, spans: group }) => ({
    ...keys.spanGroup(tenantId, traceId, groupId),
    entity: 'spanGroup',
    traceId,
    spanCount: group.length,
    spans: brotliCompressSync(JSON.stringify(group.map(compactSpan)), BROTLI_TEXT),
    writtenAtMs,
    expiresAt,
  }));
}

type NullableSpanField = { [K in keyof StoredSpan]-?: null extends StoredSpan[K] ? K : never }[keyof StoredSpan];

/** Every field of a stored span that may be null (the compiler checks the list is whole). */
const NULL_FIELDS: { readonly [K in NullableSpanField]: null } = {
  parentSpanId: null,
  agentName: null,
  endTimeMs: null,
  statusMessage: null,
  errorType: null,
  model: null,
  provider: null,
  operation: null,
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  reasoningTokens: null,
  cost: null,
  input: null,
  output: null,
  toolName: null,
  sessionId: null,
  userId: null,
  experimentId: null,
  variant: null,
  agentId: null,
  durationMs: null,
};

/** Fields most spans leave empty: left out when empty, like the null fields (and absent from spans written before they existed). */
const isEmptyCollection = (field: string, value: unknown): boolean =>
  (field === 'tags' && Array.isArray(value) && value.length === 0) ||
  (field === 'metadata' && value !== null && typeof value === 'object' && Object.keys(value).length === 0);

/**
 * A span as its group item holds it: without the trace id (the item's) and the fields that are null
 * or empty, a fifth of a span's JSON before compression and about 5% after. `storedSpan` restores it.
 */
function compactSpan({ traceId: _traceId, ...span }: StoredSpan): Partial<StoredSpan> {
  return Object.fromEntries(
    Object.entries(span).filter(([field, value]) => !(value === null && Object.hasOwn(NULL_FIELDS, field)) && !isEmptyCollection(field, value)),
  );
}

/** A span read from a group item; spans written whole (before `compactSpan`) read the same. */
const storedSpan = (compact: Partial<StoredSpan>, traceId: string): StoredSpan =>
  ({ ...NULL_FIELDS, tags: [], metadata: {}, traceId, ...compact }) as StoredSpan;

/** Quality 5 compresses span JSON about 8% tighter than deflate at a similar speed. */
const BROTLI_TEXT = { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };

/**
 * The spans in a trace partition's items (other items are ignored). A span sent again in another
 * grouping is in two items: the later write wins, as an overwrite would.
 */
export function spansFromItems(items: readonly Record<string, unknown>[]): StoredSpanWrite[] {
  const latest = new Map<string, StoredSpanWrite>();
  for (const item of items) {
    if (!String(item['SK']).startsWith(SPAN_GROUP_PREFIX)) continue;
    const writtenAtMs = Number(item['writtenAtMs']);
    const compact = JSON.parse(brotliDecompressSync(item['spans'] as Uint8Array).toString('utf8')) as Partial<StoredSpan>[];
    for (const span of compact.map((c) => storedSpan(c, String(item['traceId'])))) {
      const seen = latest.get(span.spanId);
      if (!seen || seen.writtenAtMs <= writtenAtMs) latest.set(span.spanId, { ...span, writtenAtMs });
    }
  }
  return [...latest.values()];
}

/**
 * A trace summary item as `putSummary` writes it (without the alert marks, which only `markAlerted`
 * adds; with a basis, the span groups it was computed from). Every write makes a new version, the
 * re-index's without a basis too, so that a worker that read the summary before reads it again.
 */
export function summaryItem(tenantId: string, summary: TraceSummary, revision: number, expiresAt: number, basis?: SummaryBasis): Record<string, unknown> {
  return {
    ...keys.traceSummary(tenantId, summary.traceId),
    ...traceIndexKeys(tenantId, summary),
    entity: 'traceSummary',
    ...summary,
    tenantId,
    revision,
    ...(basis ? { spanGroups: [...basis.spanGroups], contentBytes: basis.contentBytes } : {}),
    version: randomToken(),
    expiresAt,
  };
}

/** A random token: a summary item's `version`, a session copy's `writeId`. */
export const randomToken = () => randomBytes(12).toString('base64url');

/** What a summary item holds besides the summary: its write bookkeeping, the alert marks, and the marks of moves and of a delete. */
const SUMMARY_BOOKKEEPING = ['tenantId', 'revision', 'spanGroups', 'contentBytes', 'version', 'alertTypes', 'movesLeft', 'sessionsLeft', 'deleting'] as const;

/**
 * The moves out of a session a summary item's writers have not finished (see `SessionMove`): a string
 * set `movesLeft`, each element the move's id, a space and the session's id (a move id has no space,
 * so the session id is all that follows the first). Marks written before moves had ids are session ids
 * in the string set `sessionsLeft`.
 */
const MOVE_SEPARATOR = ' ';
const moveElement = ({ moveId, sessionId }: NewMove) => `${moveId}${MOVE_SEPARATOR}${sessionId}`;
const movesLeftOf = (item: Record<string, unknown>): SessionMove[] => {
  const set = (name: string) => [...((item[name] as ReadonlySet<string> | undefined) ?? [])];
  const moves = set('movesLeft').map((element) => {
    const at = element.indexOf(MOVE_SEPARATOR);
    return { moveId: element.slice(0, at), sessionId: element.slice(at + 1) };
  });
  return [...moves, ...set('sessionsLeft').map((sessionId) => ({ sessionId, moveId: null }))];
};
/** The update that takes a finished move off the summary item. */
const forgetting = (left: SessionMove) =>
  left.moveId === null
    ? { UpdateExpression: 'DELETE sessionsLeft :left', ExpressionAttributeValues: { ':left': new Set([left.sessionId]) } }
    : {
        UpdateExpression: 'DELETE movesLeft :left',
        ExpressionAttributeValues: { ':left': new Set([moveElement({ sessionId: left.sessionId, moveId: left.moveId })]) },
      };

/** A summary item as the domain reads it: the summary apart from its bookkeeping. */
export function storedSummary(item: Record<string, unknown>): StoredSummary {
  const summary = stripKeys<Record<string, unknown>>(item);
  for (const name of SUMMARY_BOOKKEEPING) delete summary[name];
  summary['closedAtMs'] ??= null; // stored before traces were closed
  return {
    summary: summary as unknown as TraceSummary,
    revision: Number(item['revision'] ?? 0),
    expiresAt: Number(item['expiresAt']),
    ...(Array.isArray(item['spanGroups']) ? { spanGroups: (item['spanGroups'] as unknown[]).map(String) } : {}),
    ...(item['contentBytes'] !== undefined ? { contentBytes: Number(item['contentBytes']) } : {}),
    ...(item['version'] !== undefined ? { version: String(item['version']) } : {}),
    ...(item['movesLeft'] !== undefined || item['sessionsLeft'] !== undefined ? { movesLeft: movesLeftOf(item) } : {}),
    ...(item['deleting'] === true ? { deleting: true as const } : {}),
  };
}

/** A condition of an update: its expression, with the names and values it uses. */
interface WriteCondition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Set attributes an update adds elements to, by name. */
type SetAdditions = Record<string, ReadonlySet<string>>;

/**
 * The condition that a summary write replaces exactly the summary its basis read: none, the same
 * version, or (one written without a basis) the same revision and span count.
 */
function replacing(stored: StoredSummary | undefined): WriteCondition {
  if (!stored) return { expression: 'attribute_not_exists(PK)', names: {}, values: {} };
  if (stored.version !== undefined) return { expression: '#version = :c_version', names: { '#version': 'version' }, values: { ':c_version': stored.version } };
  return {
    expression: 'attribute_not_exists(#version) AND #rev = :c_rev AND #spans = :c_spans',
    names: { '#version': 'version', '#rev': 'revision', '#spans': 'spanCount' },
    values: { ':c_rev': stored.revision, ':c_spans': stored.summary.spanCount },
  };
}

/** Sort-key bounds of a time range over `timeSortKey` keys (inclusive of both ends, to the millisecond). */
export function timeRangeCondition(startMs: number | undefined, endMs: number | undefined) {
  const lower = startMs === undefined ? '0' : new Date(startMs).toISOString();
  const upper = endMs === undefined ? '9' : `${new Date(endMs).toISOString()}~`;
  return { lower, upper };
}

/** The condition on an agent or status that the list read does not key on, and the deleted agents to leave out. */
export function traceScopeCondition(q: { agentId?: string; status?: TraceStatus; excludeAgents?: readonly string[] }): Condition | undefined {
  const parts: Condition[] = [];
  if (q.agentId !== undefined) parts.push({ expression: '#sagent = :sagent', values: { ':sagent': q.agentId }, names: { '#sagent': 'agentId' } });
  if (q.status !== undefined) parts.push({ expression: '#sstatus = :sstatus', values: { ':sstatus': q.status }, names: { '#sstatus': 'status' } });
  if (q.excludeAgents?.length) {
    const values = Object.fromEntries(q.excludeAgents.map((id, i) => [`:sgone${i}`, id]));
    parts.push({ expression: `NOT (#sagent IN (${Object.keys(values).join(', ')}))`, values, names: { '#sagent': 'agentId' } });
  }
  return allOf(...parts);
}

/** The FilterExpression of the free filters. */
export function traceFilterCondition(q: TraceFreeFilters): Condition | undefined {
  const parts: Condition[] = [];
  const add = (expression: string, values: Record<string, unknown> = {}, names: Record<string, string> = {}) => parts.push({ expression, values, names });
  if (q.model !== undefined) add('contains(#fmodels, :fmodel)', { ':fmodel': q.model }, { '#fmodels': 'models' });
  if (q.toolName !== undefined) add('contains(#ftools, :ftool)', { ':ftool': q.toolName }, { '#ftools': 'toolNames' });
  if (q.errorType !== undefined) add('contains(#ferrors, :ferror)', { ':ferror': q.errorType }, { '#ferrors': 'errorTypes' });
  if (q.name !== undefined) add('#fname = :fname', { ':fname': q.name }, { '#fname': 'name' });
  if (q.tag !== undefined) add('contains(#ftags, :ftag)', { ':ftag': q.tag }, { '#ftags': 'tags' });
  // The key is an attribute name placeholder, never part of the expression's text.
  if (q.metadata !== undefined)
    add('#fmeta.#fmetakey = :fmetavalue', { ':fmetavalue': q.metadata.value }, { '#fmeta': 'metadata', '#fmetakey': q.metadata.key });
  if (q.minDurationMs !== undefined) add('#fduration >= :fmindur', { ':fmindur': q.minDurationMs }, { '#fduration': 'durationMs' });
  if (q.maxDurationMs !== undefined) add('#fduration <= :fmaxdur', { ':fmaxdur': q.maxDurationMs }, { '#fduration': 'durationMs' });
  if (q.minCost !== undefined) add('#fcost >= :fmincost', { ':fmincost': q.minCost }, { '#fcost': 'cost' });
  if (q.minTokens !== undefined) add('#ftokens >= :fmintok', { ':fmintok': q.minTokens }, { '#ftokens': 'totalTokens' });
  if (q.hasAlert !== undefined) add(`${q.hasAlert ? 'attribute_exists' : 'attribute_not_exists'}(#falerts)`, {}, { '#falerts': 'alertTypes' });
  return allOf(...parts);
}

/**
 * The key-ordered lists a trace query reads: a user's list (GSI3, status and agent as filters), or
 * the agent's or the tenant's lists by state: with a status, that status's list and the pending one
 * (filtered by status); without, all three merged.
 */
function traceSources(tenantId: string, q: TraceQuery, states: readonly TraceState[] = TRACE_STATES): Source[] {
  if (q.userId !== undefined) {
    const filter = traceScopeCondition({ agentId: q.agentId, status: q.status, ...(q.agentId === undefined ? { excludeAgents: q.excludeAgents } : {}) });
    return [{ index: 'gsi3', partition: keys.userCollection(tenantId, q.userId, 'TRACES'), ...(filter ? { filter } : {}) }];
  }
  return listedStates(q, states).map((state) => {
    const partition = q.agentId === undefined ? keys.tenantCollection(tenantId, 'TRACES', state) : keys.agentCollection(tenantId, q.agentId, 'TRACES', state);
    const filter = traceScopeCondition({
      ...(state === 'pending' ? { status: q.status } : {}),
      ...(q.agentId === undefined ? { excludeAgents: q.excludeAgents } : {}),
    });
    // Most traces are complete and ok (or of the status asked for): that list fills most of a page.
    const bulk = state === (q.status ?? 'ok');
    return { index: q.agentId === undefined ? 'gsi1' : 'gsi2', partition, ...(filter ? { filter } : {}), ...(bulk ? { bulk } : {}) };
  });
}

/** The states whose lists `traceSources` reads for a query without a user, in its order. */
const listedStates = (q: TraceQuery, states: readonly TraceState[] = TRACE_STATES) =>
  states.filter((state) => q.status === undefined || state === q.status || state === 'pending');

const rangeOf = (q: { startMs?: number; endMs?: number }) => timeRangeCondition(q.startMs, q.endMs);

/**
 * Writes an item made from a trace's spans (its summary, or its contribution to its session) unless
 * a newer one is there: `revision` is the latest span write it saw (or one past the revision of the
 * summary it replaces, when that is later), so a worker that read fewer spans cannot overwrite a more
 * complete one. False when a newer one was there (or, with `mustExist`, none: a rewrite must not
 * bring back a deleted trace).
 */
export function updateUnlessNewer(db: Db, item: Record<string, unknown>, { mustExist = false } = {}, additions: SetAdditions = {}): Promise<boolean> {
  const newer = '#rev < :c_rev OR (#rev = :c_rev AND #spans <= :c_spans)';
  return updateIf(
    db,
    item,
    {
      expression: mustExist ? `attribute_exists(PK) AND (${newer})` : `attribute_not_exists(PK) OR ${newer}`,
      names: { '#rev': 'revision', '#spans': 'spanCount' },
      values: { ':c_rev': item['revision'], ':c_spans': item['spanCount'] },
    },
    additions,
  );
}

/**
 * Writes the item's attributes when the condition holds; false when it does not. An update, not a
 * put, so the alert marks stay; index entries the item no longer has (a trace without agent or user,
 * or one written in an earlier layout) go.
 */
async function updateIf(db: Db, item: Record<string, unknown>, condition: WriteCondition, additions: SetAdditions = {}): Promise<boolean> {
  const { PK, SK, ...attributes } = item;
  const names = Object.keys(attributes).filter((name) => attributes[name] !== undefined);
  const gone = Object.values(TABLE.indexes)
    .flatMap((index) => [index.partitionKey, index.sortKey])
    .filter((name) => attributes[name] === undefined);
  const added = Object.keys(additions);
  return written(
    db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: { PK, SK },
        UpdateExpression: [
          `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
          ...(gone.length ? [`REMOVE ${gone.join(', ')}`] : []),
          ...(added.length ? [`ADD ${added.map((_, i) => `#add${i} :add${i}`).join(', ')}`] : []),
        ].join(' '),
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
          ...Object.fromEntries(added.map((name, i) => [`#add${i}`, name])),
          ...condition.names,
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:a${i}`, attributes[name]])),
          ...Object.fromEntries(added.map((name, i) => [`:add${i}`, additions[name]])),
          ...condition.values,
        },
      }),
    ),
  );
}

/** Every item of one trace (summary, spans, signals, logs, anomalies) in one query. */
export function tracePartitionItems(db: Db, tenantId: string, traceId: string): Promise<Record<string, unknown>[]> {
  return queryAll(db, {
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.tracePartition(tenantId, traceId) },
  });
}

export function tracesRepository(db: Db): TracesRepository {
  const { doc, tableName: TableName } = db;
  const addedFacets = recentMemory<string>(FACETS_REMEMBERED_MS, FACETS_REMEMBERED_TENANTS);

  /** An agent's complete traces in a start-time range, newest first: one page. */
  const agentPage = (tenantId: string, agentId: string, range: { lower: string; upper: string } | undefined, limit: number, states: readonly TraceState[]) =>
    readPage(db, { sources: traceSources(tenantId, { agentId }, states), ...(range ? { range } : {}), page: { limit, skip: 0 } });

  /** The marker that has the closing job look at a pending trace once it is due; it expires with the trace. */
  const putCloseMarker = (marker: Omit<CloseMarker, 'expiresAt'>, expiresAt: number) =>
    doc.send(
      new PutCommand({
        TableName,
        Item: { ...keys.closeDue(marker.tenantId, marker.traceId, marker.dueAtMs), entity: 'traceCloseDue', ...marker, expiresAt },
      }),
    );

  /** Every span group of a trace: their ids and spans. */
  async function spanGroupsOfTrace(tenantId: string, traceId: string, consistent = true): Promise<{ groupIds: string[]; spans: StoredSpanWrite[] }> {
    const items = await queryAll(db, {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.tracePartition(tenantId, traceId), ':prefix': SPAN_GROUP_PREFIX },
      ConsistentRead: consistent,
    });
    return { groupIds: items.map((i) => String(i['SK']).slice(SPAN_GROUP_PREFIX.length)), spans: spansFromItems(items) };
  }

  return {
    /** Idempotent: a redelivered message writes the same span groups again (see `spanGroupItems`). */
    async putSpans(tenantId: string, spans: readonly StoredSpan[], expiresAt: number, writtenAtMs: number): Promise<void> {
      await batchWrite(db, putRequests(spanGroupItems(tenantId, spans, expiresAt, writtenAtMs)));
    },

    /** `putSpans` of several messages' spans in one go. */
    async putSpansOfMessages(
      tenantId: string,
      messages: ReadonlyArray<{ spans: readonly StoredSpan[]; expiresAt: number }>,
      writtenAtMs: number,
    ): Promise<void> {
      await batchWrite(db, putRequests(messages.flatMap((m) => spanGroupItems(tenantId, m.spans, m.expiresAt, writtenAtMs))));
    },

    async spansOf(tenantId: string, traceId: string, consistent = true): Promise<StoredSpanWrite[]> {
      return (await spanGroupsOfTrace(tenantId, traceId, consistent)).spans;
    },

    spanGroupsOfTrace,

    /** The spans of these span groups, by trace id (strongly consistent reads, grouped). */
    async spansOfGroups(tenantId: string, groups: ReadonlyArray<{ traceId: string; groupId: string }>): Promise<Map<string, StoredSpanWrite[]>> {
      const items = await batchGet(
        db,
        groups.map((g) => keys.spanGroup(tenantId, g.traceId, g.groupId)),
        true,
      );
      const byTrace = new Map<string, Record<string, unknown>[]>();
      for (const item of items) byTrace.set(String(item['traceId']), [...(byTrace.get(String(item['traceId'])) ?? []), item]);
      return new Map([...byTrace].map(([traceId, traceItems]) => [traceId, spansFromItems(traceItems)]));
    },

    /** The stored summaries of these traces, by trace id (strongly consistent reads, grouped). */
    async summaries(tenantId: string, traceIds: readonly string[]): Promise<Map<string, StoredSummary>> {
      const items = await batchGet(
        db,
        traceIds.map((traceId) => keys.traceSummary(tenantId, traceId)),
        true,
      );
      return new Map(items.map((item) => [String(item['traceId']), storedSummary(item)]));
    },

    async listed(tenantId: string, traceIds: readonly string[]): Promise<Map<string, StoredTraceSummary>> {
      const items = await batchGet(
        db,
        traceIds.map((traceId) => keys.traceSummary(tenantId, traceId)),
      );
      return new Map(items.filter((item) => item['deleting'] !== true).map((item) => [String(item['traceId']), stripKeys<StoredTraceSummary>(item)]));
    },

    /**
     * Writes the summary unless a newer one is there: `revision` is the latest span write it saw (or
     * one past the revision of the summary it replaces, when that is later), so a worker that read
     * fewer spans cannot overwrite a more complete summary. With a basis, only
     * if the stored summary is still the one the basis read (optimistic concurrency: of two workers
     * adding span groups to a trace at once, the one that read an older summary has to read again).
     * An update, not a put, so the alert marks the judge may have added meanwhile stay.
     */
    async putSummary(
      tenantId: string,
      summary: TraceSummary,
      revision: number,
      expiresAt: number,
      options: { mustExist?: boolean; basis?: SummaryBasis; leaving?: NewMove | null } = {},
    ): Promise<boolean> {
      const replaced = options.basis?.replaces;
      if (traceState(summary) === 'pending' && (!options.basis || !replaced || traceState(replaced.summary) !== 'pending')) {
        await putCloseMarker({ tenantId, traceId: summary.traceId, dueAtMs: revision + TRACE_QUIET_MS }, expiresAt);
      }
      const item = summaryItem(tenantId, summary, revision, expiresAt, options.basis);
      const additions: SetAdditions = options.leaving ? { movesLeft: new Set([moveElement(options.leaving)]) } : {};
      return options.basis ? updateIf(db, item, replacing(options.basis.replaces), additions) : updateUnlessNewer(db, item, options, additions);
    },

    async forgetMove(tenantId: string, traceId: string, left: SessionMove): Promise<void> {
      await written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.traceSummary(tenantId, traceId),
            ConditionExpression: 'attribute_exists(PK)',
            ...forgetting(left),
          }),
        ),
      );
    },

    async closeSummary(tenantId: string, stored: StoredSummary, closedAtMs: number): Promise<StoredSummary | undefined> {
      const summary = { ...stored.summary, closedAtMs };
      const version = randomToken();
      const item = { ...keys.traceSummary(tenantId, summary.traceId), ...traceIndexKeys(tenantId, summary), closedAtMs, version };
      return (await updateIf(db, item, replacing(stored))) ? { ...stored, summary, version } : undefined;
    },

    async dueToClose(nowMs: number, limit: number): Promise<CloseMarker[]> {
      const shards = await Promise.all(
        Array.from({ length: keys.CLOSE_SHARDS }, (_, shard) =>
          doc.send(
            new QueryCommand({
              TableName,
              KeyConditionExpression: 'PK = :pk AND SK < :due',
              ExpressionAttributeValues: { ':pk': keys.closeDuePartition(shard), ':due': keys.closeDueBefore(nowMs + 1) },
              Limit: limit,
              ConsistentRead: true,
            }),
          ),
        ),
      );
      return shards.flatMap((page) => page.Items ?? []).map((i) => ({ ...stripKeys<CloseMarker>(i), expiresAt: Number(i['expiresAt']) }));
    },

    async rescheduleClose(marker: CloseMarker, dueAtMs: number): Promise<void> {
      await putCloseMarker({ ...marker, dueAtMs }, marker.expiresAt);
      await doc.send(new DeleteCommand({ TableName, Key: keys.closeDue(marker.tenantId, marker.traceId, marker.dueAtMs) }));
    },

    async forgetClose(marker: CloseMarker): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keys.closeDue(marker.tenantId, marker.traceId, marker.dueAtMs) }));
    },

    async getSummary(tenantId: string, traceId: string): Promise<StoredTraceSummary | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.traceSummary(tenantId, traceId) }));
      return Item ? stripKeys<StoredTraceSummary>(Item) : undefined;
    },

    /**
     * Notes on the trace's summary, and on its contribution to its session, that an alert of this
     * type was raised on it (a set: the same type twice is one mark); nothing when the summary is gone.
     * Both are written by updates that keep the mark.
     */
    async markAlerted(tenantId: string, traceId: string, alertType: string): Promise<void> {
      const mark = {
        UpdateExpression: 'ADD alertTypes :type',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':type': new Set([alertType]) },
      };
      const marked = await ifWritten(doc.send(new UpdateCommand({ TableName, Key: keys.traceSummary(tenantId, traceId), ...mark, ReturnValues: 'ALL_NEW' })));
      const sessionId = marked?.Attributes?.['sessionId'] as string | null | undefined;
      if (sessionId != null) {
        await written(
          doc.send(new UpdateCommand({ TableName, Key: keys.sessionTrace(tenantId, sessionId, Number(marked!.Attributes!['startTimeMs']), traceId), ...mark })),
        );
      }
    },

    async readTrace(tenantId: string, traceId: string): Promise<TraceContents> {
      const items = await tracePartitionItems(db, tenantId, traceId);
      return {
        summary: items.find((i) => i['SK'] === 'SUMMARY') as TraceSummary | undefined,
        spans: spansFromItems(items),
        signals: items.filter((i) => String(i['SK']).startsWith('SIGNAL#')) as unknown as StoredSignal[],
        logs: items.filter((i) => String(i['SK']).startsWith('LOG#')) as unknown as StoredLog[],
        anomalies: items.find((i) => i['SK'] === 'ANOMALIES') as TraceAnomalies | undefined,
      };
    },

    /**
     * One page of matching summaries, newest first (by start time), from the narrowest key-ordered
     * lists; with `count`, and how many match (see `readPage`); and how many pending traces match,
     * when the page was read from the start of the lists and read the pending list to its end.
     */
    async page(tenantId: string, q: TraceQuery, page: PageInput, { count = false } = {}) {
      const tally = page.after === undefined && q.userId === undefined;
      const { matchedToEnd, ...result } = await readPage(db, {
        sources: traceSources(tenantId, q),
        range: rangeOf(q),
        filter: traceFilterCondition(q),
        page,
        count,
        tally,
      });
      const pendingCount = matchedToEnd?.[listedStates(q).indexOf('pending')];
      return { ...result, items: result.items.map((i) => stripKeys<StoredTraceSummary>(i)), ...(pendingCount !== undefined ? { pendingCount } : {}) };
    },

    /**
     * How many summaries match. A count of the query's whole lists reads within TRAFFIC_COUNT_BUDGET;
     * one narrowed to some lists by `states` (a part of an exact total the rollups do not hold: the
     * pending traces, a range's ragged minutes) within COUNT_BUDGET, so the total stays exact while they are fewer.
     */
    count(tenantId: string, q: TraceQuery, states?: readonly TraceState[]): Promise<Total> {
      const budget = states ? COUNT_BUDGET : TRAFFIC_COUNT_BUDGET;
      return countItems(db, { sources: traceSources(tenantId, q, states), range: rangeOf(q), filter: traceFilterCondition(q), budget });
    },

    /** The start times of the oldest and the newest complete trace the query's lists hold, or undefined when they hold none. */
    async completeStart(tenantId: string, q: TraceQuery, end: 'oldest' | 'newest'): Promise<number | undefined> {
      const order = end === 'oldest' ? 'oldest-first' : 'newest-first';
      const [first] = (await readPage(db, { sources: traceSources(tenantId, q, ['ok', 'error']), range: rangeOf(q), order, page: { limit: 1, skip: 0 } }))
        .items;
      return first ? Number(first['startTimeMs']) : undefined;
    },

    /** Up to `limit` of an agent's complete summaries that started in [startMs, endMs), newest first: one page, for sampling. */
    async newestOfAgent(tenantId: string, agentId: string, startMs: number, endMs: number, limit: number): Promise<TraceSummary[]> {
      if (endMs <= startMs) return [];
      const { items } = await agentPage(tenantId, agentId, timeRangeCondition(startMs, endMs - 1), limit, ['ok', 'error']);
      return items.map((i) => stripKeys<TraceSummary>(i));
    },

    /** When the agent's newest trace started, or undefined when it has none. */
    async latestStartOfAgent(tenantId: string, agentId: string): Promise<number | undefined> {
      const [newest] = (await agentPage(tenantId, agentId, undefined, 1, TRACE_STATES)).items;
      return newest === undefined ? undefined : Number(newest['startTimeMs']);
    },

    /** Up to `limit` of an agent's traces (id, session, start), for purging it page by page. */
    async tracesOfAgent(tenantId: string, agentId: string, limit: number): Promise<Array<Pick<TraceSummary, 'traceId' | 'sessionId' | 'startTimeMs'>>> {
      const { items } = await agentPage(tenantId, agentId, undefined, limit, TRACE_STATES);
      return items.map((i) => ({ traceId: String(i['traceId']), sessionId: (i['sessionId'] as string | null) ?? null, startTimeMs: Number(i['startTimeMs']) }));
    },

    async markDeleting(tenantId: string, traceId: string): Promise<string[] | undefined> {
      const marked = await ifWritten(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.traceSummary(tenantId, traceId),
            UpdateExpression: 'SET deleting = :yes',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':yes': true },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      const item = marked?.Attributes;
      if (!item) return undefined;
      const named = (item['sessionId'] as string | null | undefined) ?? null;
      return [...new Set([...(named === null ? [] : [named]), ...movesLeftOf(item).map((left) => left.sessionId)])];
    },

    async deleteTrace(tenantId: string, traceId: string): Promise<void> {
      const summaryKey = keys.traceSummary(tenantId, traceId);
      const items = await queryAll(db, {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.tracePartition(tenantId, traceId) },
        ProjectionExpression: 'PK, SK',
      });
      await batchWrite(db, deleteRequests(items.filter((i) => i['SK'] !== summaryKey.SK).map((i) => ({ PK: i['PK'], SK: i['SK'] }))));
      await doc.send(new DeleteCommand({ TableName, Key: summaryKey }));
    },

    /** Adds the values not added lately by this process: most batches bring none, and then nothing is read or written. */
    async addFacets(tenantId: string, facets: Partial<Facets>): Promise<void> {
      const known = addedFacets.of(tenantId);
      let entries = (Object.entries(facets) as Array<[keyof Facets, string[] | undefined]>)
        .map(([name, values]) => [name, (values ?? []).filter((v) => v.length <= FACET_VALUE_CHARS && !known.has(`${name}:${v}`))] as const)
        .filter(([, values]) => values.length > 0);
      if (entries.length === 0) return;
      const { Item: stored } = await doc.send(new GetCommand({ TableName, Key: keys.facets(tenantId) }));
      const full = entries.filter(([name]) => ((stored?.[FACET_ATTRIBUTES[name]] as Set<string> | undefined)?.size ?? 0) >= FACET_VALUES_KEPT);
      for (const [name, values] of full) for (const v of values) known.add(`${name}:${v}`);
      entries = entries.filter((entry) => !full.includes(entry));
      if (entries.length === 0) return;
      await doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.facets(tenantId),
          UpdateExpression: `ADD ${entries.map(([name]) => `#${name} :${name}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, FACET_ATTRIBUTES[name]])),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([name, values]) => [`:${name}`, new Set(values)])),
        }),
      );
      for (const [name, values] of entries) for (const v of values) known.add(`${name}:${v}`);
    },

    async facets(tenantId: string): Promise<Facets> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.facets(tenantId) }));
      const list = (name: keyof Facets) => [...((Item?.[name] as Set<string> | undefined) ?? [])].sort();
      return {
        models: list('models'),
        kinds: list('kinds'),
        toolNames: list('toolNames'),
        errorTypes: list('errorTypes'),
        traceNames: list('traceNames'),
        tags: list('tags'),
        statuses: list('statuses'),
        signalNames: list('signalNames'),
      };
    },
  };
}
