import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ALERT_STATUSES, type AlertStatus } from '../domain/alerts/lifecycle.ts';
import type { AlertQuery, AlertRecord, AlertsRepository, Occurrence, OccurrenceOutcome } from '../domain/alerts/ports.ts';
import type { PageInput, Total } from '../domain/paging/page.ts';
import { backoff } from '../domain/retry.ts';
import { queryUpTo } from './batch.ts';
import { type Db, written } from './client.ts';
import * as keys from './keys.ts';
import { collectionIndexKeys, stripKeys } from './keys.ts';
import { allOf, type Condition, countItems, type KeyRange, keysOf, readPage, type Source, TRAFFIC_COUNT_BUDGET } from './pages.ts';
import { TABLE } from './table.ts';
import { timeRangeCondition } from './traces.ts';
import { inTurn } from './turns.ts';

const RECENT_TRACES = 20;
const RECENT_KEYS = 50;
const MAX_ATTEMPTS = 12;

/**
 * An alert's index entries: in its tenant's and its agent's lists of its status, by its latest
 * occurrence (`lastSeenAt`), so an alert still firing is listed with the recent ones and a date range
 * finds it; every write of the alert moves them. Alerts last written before 2026-11-30 are listed by
 * `createdAt` until their next write (`getListed` moves the active ones).
 */
export const alertIndexKeys = (a: Pick<AlertRecord, 'tenantId' | 'agentId' | 'lastSeenAt' | 'id' | 'status'>) =>
  collectionIndexKeys(a.tenantId, a.agentId, 'ALERTS', Date.parse(a.lastSeenAt), a.id, a.status);

/** An alert item as the repository writes it. */
export const alertItem = (a: AlertRecord) => ({ ...keys.alert(a.tenantId, a.id), ...alertIndexKeys(a), entity: 'alert', ...a });

/** The lists an alert query reads: the tenant's or the agent's, one per status (the one asked for, else all). */
const alertSources = (tenantId: string, q: { agentId?: string; status?: AlertStatus }): Source[] =>
  ALERT_STATUSES.filter((status) => q.status === undefined || status === q.status).map((status) =>
    q.agentId === undefined
      ? { index: 'gsi1', partition: keys.tenantCollection(tenantId, 'ALERTS', status) }
      : { index: 'gsi2', partition: keys.agentCollection(tenantId, q.agentId, 'ALERTS', status) },
  );

/**
 * Alerts active in the range: an occurrence at or after its start (the key, the latest occurrence) and
 * one at or before its end (a filter on the first occurrence), so an alert firing through the range
 * and past its end is in it.
 */
const activeInRange = (startMs: number | undefined, endMs: number | undefined): { range: KeyRange; filter?: Condition } => ({
  range: { lower: timeRangeCondition(startMs, undefined).lower },
  ...(endMs !== undefined && {
    filter: { expression: '#ffirst <= :ffirst', names: { '#ffirst': 'firstSeenAt' }, values: { ':ffirst': new Date(endMs).toISOString() } },
  }),
});

const alertCondition = (q: AlertQuery): Condition | undefined =>
  allOf(
    activeInRange(q.startMs, q.endMs).filter,
    q.type === undefined ? undefined : { expression: '#ftype = :ftype', names: { '#ftype': 'type' }, values: { ':ftype': q.type } },
    q.severity === undefined ? undefined : { expression: '#fseverity = :fseverity', names: { '#fseverity': 'severity' }, values: { ':fseverity': q.severity } },
  );

export function alertsRepository(db: Db): AlertsRepository {
  const { doc, tableName: TableName } = db;

  async function get(tenantId: string, alertId: string, consistent = false): Promise<AlertRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.alert(tenantId, alertId), ConsistentRead: consistent }));
    return Item ? stripKeys<AlertRecord>(Item) : undefined;
  }

  /**
   * An alert read consistently, moved to its place in the lists when it was last written while they
   * were by creation time (before 2026-11-30): the auto-resolve job reads every active alert, so a
   * still-firing alert of then is listed by its latest occurrence within one run, with no walk of the table.
   */
  async function getListed(tenantId: string, alertId: string): Promise<AlertRecord | undefined> {
    const { Item } = await doc.send(new GetCommand({ TableName, Key: keys.alert(tenantId, alertId), ConsistentRead: true }));
    if (!Item) return undefined;
    const alert = stripKeys<AlertRecord>(Item);
    const entries = alertIndexKeys(alert);
    const sortKeys = [TABLE.indexes.gsi1.sortKey, TABLE.indexes.gsi2.sortKey] as const;
    if (sortKeys.some((name) => Item[name] !== entries[name])) {
      // On the version read: a write meanwhile has placed it already.
      await written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.alert(tenantId, alertId),
            UpdateExpression: 'SET #sk1 = :sk1, #sk2 = :sk2',
            ConditionExpression: 'version = :v',
            ExpressionAttributeNames: { '#sk1': sortKeys[0], '#sk2': sortKeys[1] },
            ExpressionAttributeValues: { ':sk1': entries[sortKeys[0]], ':sk2': entries[sortKeys[1]], ':v': alert.version },
          }),
        ),
      );
    }
    return alert;
  }

  async function putIfAbsent(key: Record<string, unknown>, attributes: Record<string, unknown>): Promise<boolean> {
    return written(doc.send(new PutCommand({ TableName, Item: { ...key, ...attributes }, ConditionExpression: 'attribute_not_exists(PK)' })));
  }

  async function deleteIf(key: Record<string, unknown>, alertId: string): Promise<void> {
    await written(doc.send(new DeleteCommand({ TableName, Key: key, ConditionExpression: 'alertId = :id', ExpressionAttributeValues: { ':id': alertId } })));
  }

  /** Replaces the alert only if nobody changed it since it was read (optimistic concurrency). */
  async function replace(next: AlertRecord, expectedVersion: number): Promise<boolean> {
    return written(
      doc.send(
        new PutCommand({
          TableName,
          Item: alertItem(next),
          ConditionExpression: 'version = :v',
          ExpressionAttributeValues: { ':v': expectedVersion },
        }),
      ),
    );
  }

  function newAlert(tenantId: string, alertId: string, o: Occurrence): AlertRecord {
    const at = o.at.toISOString();
    return {
      id: alertId,
      tenantId,
      agentId: o.agentId,
      agentName: o.agentName,
      type: o.type,
      category: o.category,
      severity: o.severity,
      status: 'open',
      message: o.message,
      value: o.value,
      threshold: o.threshold,
      reasoning: o.reasoning,
      occurrenceCount: 1,
      firstSeenAt: at,
      lastSeenAt: at,
      traceIds: [o.traceId],
      acknowledgedAt: null,
      resolvedAt: null,
      createdAt: at,
      // biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as text.
      updatedAt: o.recordedAt.toISOString() > at ? o.recordedAt.toISOString() : at,
      occurrenceKeys: [o.key],
      version: 1,
    };
  }

  async function recordOnce(tenantId: string, o: Occurrence, newId: () => string): Promise<{ alert: AlertRecord; outcome: OccurrenceOutcome }> {
    const pointerKey = keys.activeAlertPointer(tenantId, o.agentId, o.type);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (attempt > 0) await backoff(attempt);
      const { Item: pointer } = await doc.send(new GetCommand({ TableName, Key: pointerKey, ConsistentRead: true }));
      if (!pointer) {
        const alertId = newId();
        if (!(await putIfAbsent(pointerKey, { entity: 'alertPointer', alertId }))) continue;
        const alert = newAlert(tenantId, alertId, o);
        await doc.send(new PutCommand({ TableName, Item: alertItem(alert) }));
        await putIfAbsent(keys.activeAlertIndex(tenantId, alertId), { entity: 'activeAlert', tenantId, alertId });
        return { alert, outcome: 'opened' };
      }
      const alertId = String(pointer['alertId']);
      const current = await get(tenantId, alertId, true);
      if (!current) {
        // The pointer was claimed but the alert never written (a crash in between): write it now.
        const alert = newAlert(tenantId, alertId, o);
        if (await putIfAbsent(keys.alert(tenantId, alertId), alertItem(alert))) {
          await putIfAbsent(keys.activeAlertIndex(tenantId, alertId), { entity: 'activeAlert', tenantId, alertId });
          return { alert, outcome: 'opened' };
        }
        continue;
      }
      if (current.status === 'resolved') {
        await deleteIf(pointerKey, alertId); // left behind by an interrupted resolve
        continue;
      }
      if (current.occurrenceKeys.includes(o.key)) return { alert: current, outcome: 'duplicate' };
      const at = o.at.toISOString();
      // An occurrence may be older than those counted (spans arrive in any order): the alert describes its latest.
      const latest = at >= current.lastSeenAt;
      const others = current.traceIds.filter((t) => t !== o.traceId);
      const recordedAt = o.recordedAt.toISOString();
      const next: AlertRecord = {
        ...current,
        occurrenceCount: current.occurrenceCount + 1,
        // biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as text.
        firstSeenAt: at < current.firstSeenAt ? at : current.firstSeenAt,
        lastSeenAt: latest ? at : current.lastSeenAt,
        ...(latest && { message: o.message, value: o.value, threshold: o.threshold, reasoning: o.reasoning ?? current.reasoning }),
        // The latest occurrence's trace first (the message describes it), the others as they were counted.
        traceIds: (latest ? [o.traceId, ...others] : [...others.slice(0, 1), o.traceId, ...others.slice(1)]).slice(0, RECENT_TRACES),
        occurrenceKeys: [o.key, ...current.occurrenceKeys].slice(0, RECENT_KEYS),
        // biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as text.
        updatedAt: recordedAt > current.updatedAt ? recordedAt : current.updatedAt,
        version: current.version + 1,
      };
      if (await replace(next, current.version)) return { alert: next, outcome: 'counted' };
    }
    throw new Error(`could not record an occurrence of ${o.type} after ${MAX_ATTEMPTS} attempts of contention`);
  }

  return {
    get,
    getListed,

    /**
     * Adds one occurrence to the agent's active alert of this type, opening one if there is none.
     * Concurrency-safe: the active alert is claimed through a pointer item (one winner), and counting
     * is a versioned replace, retried on conflict; a key already counted is not counted again.
     */
    recordOccurrence(tenantId: string, o: Occurrence, newId: () => string): Promise<{ alert: AlertRecord; outcome: OccurrenceOutcome }> {
      return inTurn(`${tenantId}|${o.agentId}|${o.type}`, () => recordOnce(tenantId, o, newId));
    },

    /**
     * Moves an alert to `status` (the caller has checked the transition). Resolving releases the
     * agent + type, so the next occurrence opens a new alert; reopening a resolved alert claims it
     * back, which fails (answering the newer alert's id) when a newer alert of the type is active.
     */
    async setStatus(current: AlertRecord, status: AlertStatus, now: Date): Promise<AlertRecord | { activeAlertId: string } | 'changed'> {
      const at = now.toISOString();
      const pointerKey = keys.activeAlertPointer(current.tenantId, current.agentId, current.type);
      if (current.status === 'resolved' && status !== 'resolved') {
        if (!(await putIfAbsent(pointerKey, { entity: 'alertPointer', alertId: current.id }))) {
          const { Item } = await doc.send(new GetCommand({ TableName, Key: pointerKey, ConsistentRead: true }));
          if (Item === undefined) return 'changed'; // released since the claim failed: read and try again
          if (Item['alertId'] !== current.id) return { activeAlertId: String(Item['alertId']) };
        }
      }
      const next: AlertRecord = {
        ...current,
        status,
        acknowledgedAt: status === 'acknowledged' ? at : status === 'open' ? null : current.acknowledgedAt,
        resolvedAt: status === 'resolved' ? at : null,
        updatedAt: at,
        version: current.version + 1,
      };
      if (!(await replace(next, current.version))) return 'changed';
      if (status === 'resolved') {
        await deleteIf(pointerKey, current.id);
        await doc.send(new DeleteCommand({ TableName, Key: keys.activeAlertIndex(current.tenantId, current.id) }));
      } else {
        await putIfAbsent(keys.activeAlertIndex(current.tenantId, current.id), { entity: 'activeAlert', tenantId: current.tenantId, alertId: current.id });
      }
      return next;
    },

    /** One page of alerts, latest occurrence first: the status is a key condition (each status has its list), type and severity filters. */
    async page(tenantId: string, q: AlertQuery, page: PageInput) {
      const result = await readPage(db, {
        sources: alertSources(tenantId, q),
        range: activeInRange(q.startMs, q.endMs).range,
        filter: alertCondition(q),
        page,
      });
      return { ...result, items: result.items.map((i) => stripKeys<AlertRecord>(i)) };
    },

    count: (tenantId: string, q: AlertQuery): Promise<Total> =>
      countItems(db, {
        sources: alertSources(tenantId, q),
        range: activeInRange(q.startMs, q.endMs).range,
        filter: alertCondition(q),
        budget: TRAFFIC_COUNT_BUDGET,
      }),

    /** The alerts active in the range, latest occurrence first, reading at most `max` of each status's list. */
    async recent(tenantId: string, q: { agentId?: string; startMs?: number; endMs?: number }, max: number) {
      const { range, filter } = activeInRange(q.startMs, q.endMs);
      const lists = await Promise.all(
        alertSources(tenantId, q).map(({ index, partition }) => {
          const { indexName, partitionKey, sortKey } = keysOf(index);
          return queryUpTo(
            db,
            {
              IndexName: indexName,
              KeyConditionExpression: `${partitionKey} = :pk AND ${sortKey} >= :lower`,
              ScanIndexForward: false,
              ...(filter && { FilterExpression: filter.expression, ExpressionAttributeNames: filter.names }),
              ExpressionAttributeValues: { ':pk': partition, ':lower': range.lower, ...filter?.values },
            },
            max,
          );
        }),
      );
      return { alerts: lists.flatMap((l) => l.items).map((i) => stripKeys<AlertRecord>(i)), complete: lists.every((l) => l.complete) };
    },

    /** A page of active alerts across tenants (the auto-resolve job walks them). */
    async activePage(startAfter: Record<string, unknown> | undefined, limit: number) {
      const page = await doc.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': keys.activeAlertIndex('', '').PK },
          ExclusiveStartKey: startAfter,
          Limit: limit,
        }),
      );
      const refs = (page.Items ?? []).map((i) => ({ tenantId: String(i['tenantId']), alertId: String(i['alertId']) }));
      return { refs, next: page.LastEvaluatedKey };
    },

    async forgetActive(tenantId: string, alertId: string): Promise<void> {
      await doc.send(new DeleteCommand({ TableName, Key: keys.activeAlertIndex(tenantId, alertId) }));
    },

    /** The alert goes last: a purge stopped partway finds it again, through its own index entries, and deletes the rest. */
    async deleteOfAgent(tenantId: string, agentId: string, limit: number): Promise<number> {
      const { items } = await readPage(db, {
        sources: alertSources(tenantId, { agentId }),
        range: timeRangeCondition(undefined, undefined),
        page: { limit, skip: 0 },
      });
      for (const alert of items.map((i) => stripKeys<AlertRecord>(i))) {
        await deleteIf(keys.activeAlertPointer(tenantId, agentId, alert.type), alert.id);
        await doc.send(new DeleteCommand({ TableName, Key: keys.activeAlertIndex(tenantId, alert.id) }));
        await doc.send(new DeleteCommand({ TableName, Key: keys.alert(tenantId, alert.id) }));
      }
      return items.length;
    },

    /**
     * Claims the right to notify for an agent + type: at most once per cooldown. The same job claiming
     * again (a retried message) succeeds, so a retry still sends what the first attempt did not.
     */
    async claimNotification(tenantId: string, agentId: string, type: string, jobId: string, now: Date, cooldownMinutes: number): Promise<boolean> {
      const cutoff = new Date(now.getTime() - cooldownMinutes * 60_000).toISOString();
      return written(
        doc.send(
          new UpdateCommand({
            TableName,
            Key: keys.alertCooldown(tenantId, agentId, type),
            UpdateExpression: 'SET lastNotifiedAt = :now, lastJobId = :job, entity = :entity',
            ConditionExpression: 'attribute_not_exists(lastNotifiedAt) OR lastNotifiedAt <= :cutoff OR lastJobId = :job',
            ExpressionAttributeValues: { ':now': now.toISOString(), ':job': jobId, ':cutoff': cutoff, ':entity': 'alertCooldown' },
          }),
        ),
      );
    },
  };
}
