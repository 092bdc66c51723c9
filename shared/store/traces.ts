import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { TraceAnomalies } from '../domain/profiles/ports.ts';
import type { Facets, StoredLog, StoredSignal, StoredSpanWrite, TraceContents, TraceFilter, TracesRepository } from '../domain/spans/ports.ts';
import type { StoredSpan, TraceSummary } from '../domain/spans/summary.ts';
import { batchWrite, deleteRequests, mapConcurrently, putRequests, queryAll } from './batch.ts';
import { isConditionFailure, type Db } from './client.ts';
import * as keys from './keys.ts';
import { NO_AGENT, SPAN_GROUP_PREFIX, stripKeys, traceIndexKeys } from './keys.ts';
import { TABLE } from './table.ts';

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

const FACET_ATTRIBUTES = { models: 'models', kinds: 'kinds', toolNames: 'toolNames', statuses: 'statuses', signalNames: 'signalNames' } as const;

/**
 * Spans are stored per trace and arrival: the spans of one trace that one message brought form one
 * item holding them compressed (a trace's spans repeat its prompts, names and attribute keys, so the
 * item is about a third of their JSON, and one write replaces one per span). The group id derives
 * from the span ids, so a redelivered message overwrites its own items.
 */
function spanGroupItems(tenantId: string, spans: readonly StoredSpan[], expiresAt: number, writtenAtMs: number) {
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  return [...byTrace].map(([traceId, group]) => ({
    ...keys.spanGroup(tenantId, traceId, spanGroupId(group)),
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
  parentSpanId: null, agentName: null, endTimeMs: null, statusMessage: null, errorType: null, model: null, provider: null,
  operation: null, inputTokens: null, outputTokens: null, cachedInputTokens: null, reasoningTokens: null, cost: null, input: null, output: null,
  toolName: null, sessionId: null, userId: null, experimentId: null, variant: null, agentId: null, durationMs: null,
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
const storedSpan = (compact: Partial<StoredSpan>, traceId: string): StoredSpan => ({ ...NULL_FIELDS, tags: [], metadata: {}, traceId, ...compact }) as StoredSpan;

/** Quality 5 compresses span JSON about 8% tighter than deflate at a similar speed. */
const BROTLI_TEXT = { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };

const spanGroupId = (group: readonly StoredSpan[]): string =>
  createHash('sha256')
    .update(group.map((s) => s.spanId).sort().join('\n'))
    .digest('base64url')
    .slice(0, 22);

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

/** A trace summary item as `putSummary` writes it. */
export function summaryItem(tenantId: string, summary: TraceSummary, revision: number, expiresAt: number): Record<string, unknown> {
  return {
    ...keys.traceSummary(tenantId, summary.traceId),
    ...traceIndexKeys(tenantId, summary.agentId, summary.startTimeMs, summary.traceId),
    entity: 'traceSummary',
    ...summary,
    tenantId,
    revision,
    expiresAt,
  };
}

/** Time sort keys newest first, in DynamoDB's (byte) order, as one index's descending query answers them. */
const newestFirst = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

/** How many trace lists (one per agent) a tenant-wide listing reads at once. */
const LISTS_READ_AT_ONCE = 16;

/** Sort-key bounds of a time range over `timeSortKey` keys. */
export function timeRangeCondition(startMs: number | undefined, endMs: number | undefined) {
  const lower = startMs === undefined ? '0' : new Date(startMs).toISOString();
  const upper = endMs === undefined ? '9' : `${new Date(endMs).toISOString()}~`;
  return { lower, upper };
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
  const { gsi1, gsi2 } = TABLE.indexes;

  /** The ids of the tenant's agents (their records' `id`; the read costs their whole items). */
  async function agentIdsOf(tenantId: string): Promise<string[]> {
    const { PK, SKPrefix } = keys.agentPrefix(tenantId);
    const items = await queryAll(db, {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
      ExpressionAttributeNames: { '#id': 'id' },
      ProjectionExpression: '#id',
    });
    return items.map((i) => String(i['id']));
  }

  /** One page of an agent's trace summaries (GSI2), newest first, optionally within a sort-key range. */
  async function agentTracesPage(
    tenantId: string,
    agentId: string,
    { range, limit, projection }: { range?: { lower: string; upper: string }; limit: number; projection?: string },
  ): Promise<Record<string, unknown>[]> {
    const page = await doc.send(
      new QueryCommand({
        TableName,
        IndexName: gsi2.name,
        KeyConditionExpression: `${gsi2.partitionKey} = :pk${range ? ` AND ${gsi2.sortKey} BETWEEN :lower AND :upper` : ''}`,
        ExpressionAttributeValues: {
          ':pk': keys.agentCollection(tenantId, agentId, 'TRACES'),
          ...(range ? { ':lower': range.lower, ':upper': range.upper } : {}),
        },
        ...(projection ? { ProjectionExpression: projection } : {}),
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return page.Items ?? [];
  }

  return {
    /** Idempotent: a redelivered message writes the same span groups again (see `spanGroupItems`). */
    async putSpans(tenantId: string, spans: readonly StoredSpan[], expiresAt: number, writtenAtMs: number): Promise<void> {
      await batchWrite(db, putRequests(spanGroupItems(tenantId, spans, expiresAt, writtenAtMs)));
    },

    async spansOf(tenantId: string, traceId: string): Promise<StoredSpanWrite[]> {
      const items = await queryAll(db, {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.tracePartition(tenantId, traceId), ':prefix': SPAN_GROUP_PREFIX },
        ConsistentRead: true,
      });
      return spansFromItems(items);
    },

    /**
     * Writes the summary unless a newer one is there: `revision` is the latest span write it saw,
     * so a worker that read fewer spans cannot overwrite a more complete summary.
     */
    async putSummary(tenantId: string, summary: TraceSummary, revision: number, expiresAt: number): Promise<boolean> {
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: summaryItem(tenantId, summary, revision, expiresAt),
            ConditionExpression: 'attribute_not_exists(PK) OR revision < :revision OR (revision = :revision AND spanCount <= :count)',
            ExpressionAttributeValues: { ':revision': revision, ':count': summary.spanCount },
          }),
        );
        return true;
      } catch (err) {
        if (isConditionFailure(err)) return false;
        throw err;
      }
    },

    async getSummary(tenantId: string, traceId: string): Promise<TraceSummary | undefined> {
      const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.traceSummary(tenantId, traceId) }));
      return Item ? stripKeys<TraceSummary>(Item) : undefined;
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
     * Matching summaries, newest first: of one agent, or of the whole tenant, which reads every
     * agent's trace list and the list of agentless traces (see `traceIndexKeys`).
     */
    async listSummaries(tenantId: string, filter: TraceFilter): Promise<TraceSummary[]> {
      const scopes = filter.agentId ? [filter.agentId] : [...(await agentIdsOf(tenantId)), NO_AGENT];
      const { lower, upper } = timeRangeCondition(filter.startMs, filter.endMs);
      const conditions: string[] = [];
      const values: Record<string, unknown> = { ':lower': lower, ':upper': upper };
      const names: Record<string, string> = {};
      if (filter.status) {
        conditions.push('#status = :status');
        names['#status'] = 'status';
        values[':status'] = filter.status;
      }
      if (filter.model) {
        conditions.push('contains(models, :model)');
        values[':model'] = filter.model;
      }
      if (filter.sessionId) {
        conditions.push('sessionId = :sessionId');
        values[':sessionId'] = filter.sessionId;
      }
      const list = (index: typeof gsi1 | typeof gsi2, partition: string, only?: string) =>
        queryAll(db, {
          IndexName: index.name,
          KeyConditionExpression: `${index.partitionKey} = :pk AND ${index.sortKey} BETWEEN :lower AND :upper`,
          ...(conditions.length || only ? { FilterExpression: [...conditions, ...(only ? [only] : [])].join(' AND ') } : {}),
          ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: { ...values, ':pk': partition },
          ScanIndexForward: false,
        });
      const [lists, legacy] = await Promise.all([
        mapConcurrently(scopes, LISTS_READ_AT_ONCE, (scope) => list(gsi2, keys.agentCollection(tenantId, scope, 'TRACES'))),
        // Agentless summaries written before they had a GSI2 entry are only in the tenant's GSI1 list. Drop
        // this read after 2027-02-19, when the longest retention (90 days) has passed since that change.
        filter.agentId ? [] : list(gsi1, keys.tenantCollection(tenantId, 'TRACES'), `attribute_not_exists(${gsi2.partitionKey})`),
      ]);
      return [...lists.flat(), ...legacy]
        .sort((a, b) => newestFirst(String(a[gsi2.sortKey] ?? a[gsi1.sortKey]), String(b[gsi2.sortKey] ?? b[gsi1.sortKey])))
        .map((i) => stripKeys<TraceSummary>(i));
    },

    /** Up to `limit` of an agent's summaries that started in [startMs, endMs), newest first: one page, for sampling. */
    async newestOfAgent(tenantId: string, agentId: string, startMs: number, endMs: number, limit: number): Promise<TraceSummary[]> {
      if (endMs <= startMs) return [];
      const items = await agentTracesPage(tenantId, agentId, { range: timeRangeCondition(startMs, endMs - 1), limit });
      return items.map((i) => stripKeys<TraceSummary>(i));
    },

    /** When the agent's newest trace started, or undefined when it has none. */
    async latestStartOfAgent(tenantId: string, agentId: string): Promise<number | undefined> {
      const [newest] = await agentTracesPage(tenantId, agentId, { limit: 1, projection: 'startTimeMs' });
      return newest === undefined ? undefined : Number(newest['startTimeMs']);
    },

    /** Up to `limit` trace ids of an agent, for purging it page by page. */
    async traceIdsOfAgent(tenantId: string, agentId: string, limit: number): Promise<string[]> {
      const items = await agentTracesPage(tenantId, agentId, { limit, projection: 'traceId' });
      return items.map((i) => String(i['traceId']));
    },

    async deleteTrace(tenantId: string, traceId: string): Promise<void> {
      const items = await queryAll(db, {
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.tracePartition(tenantId, traceId) },
        ProjectionExpression: 'PK, SK',
      });
      await batchWrite(db, deleteRequests(items.map((i) => ({ PK: i['PK'], SK: i['SK'] }))));
    },

    /** Adds the values not added lately by this process: most batches bring none, and then nothing is written. */
    async addFacets(tenantId: string, facets: Partial<Facets>): Promise<void> {
      const known = addedFacets.of(tenantId);
      const entries = (Object.entries(facets) as Array<[keyof Facets, string[] | undefined]>)
        .map(([name, values]) => [name, (values ?? []).filter((v) => !known.has(`${name}:${v}`))] as const)
        .filter(([, values]) => values.length > 0);
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
      return { models: list('models'), kinds: list('kinds'), toolNames: list('toolNames'), statuses: list('statuses'), signalNames: list('signalNames') };
    },
  };
}
