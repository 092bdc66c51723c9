import type { PageInput, Total } from '../domain/paging/page.ts';
import { LOG_LEVELS } from '../domain/spans/model.ts';
import type { LogsRepository, SignalsRepository, StoredLog, StoredSignal, TimelineEntry, TimelineQuery, TimelineRepository } from '../domain/spans/ports.ts';
import { batchWrite, deleteRequests, putRequests, queryAll } from './batch.ts';
import type { Db } from './client.ts';
import * as keys from './keys.ts';
import { type Collection, collectionIndexKeys, stripKeys, timeSortKey } from './keys.ts';
import { allOf, type Condition, compareKeys, countItems, type KeyRange, keysOf, readPage, type Source, TRAFFIC_COUNT_BUDGET } from './pages.ts';
import { TABLE } from './table.ts';
import { timeRangeCondition } from './traces.ts';

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Signals and logs: stored inside their trace's partition when they name a trace (so a trace reads in
 * one query), else in a per-day partition; listed through GSI1 (tenant) and GSI2 (agent) in time order.
 */
/**
 * A signal's or log's index entries, by time: in its tenant's and its agent's lists (logs by level, so
 * a level filter is one list and all levels a merge), and a signal in its name's list (GSI3).
 */
export function timelineIndexKeys(tenantId: string, kind: 'SIGNAL' | 'LOG', entry: TimelineEntry & { signalName?: string; level?: string }) {
  const { gsi3 } = TABLE.indexes;
  const collection: Collection = kind === 'SIGNAL' ? 'SIGNALS' : 'LOGS';
  return {
    ...collectionIndexKeys(tenantId, entry.agentId, collection, entry.timestampMs, entry.id, kind === 'LOG' ? entry.level : undefined),
    ...(kind === 'SIGNAL' && entry.signalName !== undefined
      ? { [gsi3.partitionKey]: keys.signalNameCollection(tenantId, entry.signalName), [gsi3.sortKey]: timeSortKey(entry.timestampMs, entry.id) }
      : {}),
  };
}

/** A signal or log item as `put` writes it: in its trace's partition when it names one, else in its day's. */
export function timelineItem(tenantId: string, kind: 'SIGNAL' | 'LOG', entry: TimelineEntry, expiresAt: number): Record<string, unknown> {
  const collection: Collection = kind === 'SIGNAL' ? 'SIGNALS' : 'LOGS';
  return {
    PK: entry.traceId ? keys.tracePartition(tenantId, entry.traceId) : keys.untracedPartition(tenantId, collection, dayOf(entry.timestampMs)),
    SK: `${kind}#${timeSortKey(entry.timestampMs, entry.id)}`,
    ...timelineIndexKeys(tenantId, kind, entry),
    entity: kind.toLowerCase(),
    ...(entry as TimelineEntry & Record<string, unknown>),
    tenantId,
    expiresAt,
  };
}

export function timelineRepository<T extends TimelineEntry>(db: Db, kind: 'SIGNAL' | 'LOG'): TimelineRepository<T> {
  const collection: Collection = kind === 'SIGNAL' ? 'SIGNALS' : 'LOGS';

  const equals = (name: string, value: string | undefined): Condition | undefined =>
    value === undefined ? undefined : { expression: `#f${name} = :f${name}`, names: { [`#f${name}`]: name }, values: { [`:f${name}`]: value } };

  /** The lists a query reads, the sort-key range within them, and what only a filter can check. */
  function plan(tenantId: string, q: TimelineQuery): { sources: Source[]; range: KeyRange; filter?: Condition } {
    const { lower, upper } = timeRangeCondition(q.startMs, q.endMs);
    const eventNameFilter = equals('eventName', q.eventName);
    const attributeFilter = allOf(equals('level', q.level), equals('signalName', q.signalName), eventNameFilter);
    if (q.traceId !== undefined) {
      const filter = allOf(equals('agentId', q.agentId), attributeFilter);
      return {
        sources: [{ index: 'table', partition: keys.tracePartition(tenantId, q.traceId) }],
        range: { lower: `${kind}#${lower}`, upper: `${kind}#${upper}` },
        ...(filter ? { filter } : {}),
      };
    }
    if (q.signalName !== undefined) {
      const filter = equals('agentId', q.agentId);
      return {
        sources: [{ index: 'gsi3', partition: keys.signalNameCollection(tenantId, q.signalName) }],
        range: { lower, upper },
        ...(filter ? { filter } : {}),
      };
    }
    const parts = kind === 'LOG' ? LOG_LEVELS.filter((level) => q.level === undefined || level === q.level) : [undefined];
    const sources = parts.map(
      (part): Source =>
        q.agentId === undefined
          ? { index: 'gsi1', partition: keys.tenantCollection(tenantId, collection, part) }
          : { index: 'gsi2', partition: keys.agentCollection(tenantId, q.agentId, collection, part) },
    );
    return { sources, range: { lower, upper }, ...(eventNameFilter ? { filter: eventNameFilter } : {}) };
  }

  return {
    async put(tenantId: string, entries: readonly T[], expiresAt: number): Promise<void> {
      await batchWrite(db, putRequests(entries.map((entry) => timelineItem(tenantId, kind, entry, expiresAt))));
    },

    /** Deletes up to `limit` entries of an agent; answers how many it deleted. */
    async deleteOfAgent(tenantId: string, agentId: string, limit: number): Promise<number> {
      const { items } = await readPage(db, { ...plan(tenantId, { agentId }), page: { limit, skip: 0 } });
      await batchWrite(db, deleteRequests(items.map((i) => ({ PK: i['PK'], SK: i['SK'] }))));
      return items.length;
    },

    /** One page, newest first. */
    async page(tenantId: string, q: TimelineQuery, page: PageInput) {
      const result = await readPage(db, { ...plan(tenantId, q), page });
      return { ...result, items: result.items.map((i) => stripKeys<T>(i)) };
    },

    count: (tenantId: string, q: TimelineQuery): Promise<Total> => countItems(db, { ...plan(tenantId, q), budget: TRAFFIC_COUNT_BUDGET }),

    /** Every entry of a trace, or of a time range (the signal summary aggregates them), newest first. */
    async list(tenantId: string, q: TimelineQuery): Promise<T[]> {
      const { sources, range, filter } = plan(tenantId, q);
      if (range.lower !== undefined && range.upper !== undefined && compareKeys(range.lower, range.upper) > 0) return []; // a range that ends before it starts (DynamoDB refuses such a BETWEEN)
      const lists = await Promise.all(
        sources.map(({ index, partition }) => {
          const { indexName, partitionKey, sortKey } = keysOf(index);
          return queryAll(db, {
            ...(indexName ? { IndexName: indexName } : {}),
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
            ...(filter ? { FilterExpression: filter.expression } : {}),
            ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey, ...filter?.names },
            ExpressionAttributeValues: { ':pk': partition, ':lower': range.lower, ':upper': range.upper, ...filter?.values },
            ScanIndexForward: false,
          });
        }),
      );
      return lists.flat().map((i) => stripKeys<T>(i));
    },
  };
}

export const signalsRepository = (db: Db): SignalsRepository => timelineRepository<StoredSignal>(db, 'SIGNAL');
export const logsRepository = (db: Db): LogsRepository => timelineRepository<StoredLog>(db, 'LOG');
