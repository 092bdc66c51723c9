import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { autoResolveQuietAlerts } from '#shared/domain/alerts/auto-resolve.ts';
import type { AlertRecord, Occurrence } from '#shared/domain/alerts/ports.ts';
import { changeAlertStatus } from '#shared/domain/alerts/service.ts';
import { ValidationError } from '#shared/domain/errors.ts';
import type { Store } from '#shared/domain/store.ts';
import { alertItem } from '#shared/store/alerts.ts';
import type { Db } from '#shared/store/client.ts';
import { collectionIndexKeys } from '#shared/store/keys.ts';
import { startStore } from '../support/dynamo.ts';

let db: Db;
let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore('aos-alerts'));
});
afterAll(() => stop());

let n = 0;
const newId = () => randomIds.next('alr');
const occurrence = (agentId: string, traceId: string, over: Partial<Occurrence> = {}): Occurrence => ({
  agentId,
  agentName: 'bot',
  type: 'error',
  category: 'threshold',
  severity: 'high',
  message: 'tool failed',
  value: null,
  threshold: null,
  reasoning: null,
  traceId,
  key: `error:${traceId}:s`,
  at: new Date('2026-11-20T10:00:00Z'),
  recordedAt: new Date('2026-11-20T10:00:01Z'),
  ...over,
});
const tenant = () => `tnt_alerts_${++n}`;
const FIRST = { limit: 50, skip: 0 };
let now = new Date('2026-11-20T10:00:00Z');
const deps = () => ({ store, clock: { now: () => now } });

describe('alert occurrences', () => {
  it('two workers detecting the same type at once yield one alert with count 2', async () => {
    const t = tenant();
    const [a, b] = await Promise.all([
      store.alerts.recordOccurrence(t, occurrence('agt', 'trace-1'), newId),
      store.alerts.recordOccurrence(t, occurrence('agt', 'trace-2'), newId),
    ]);
    expect(a.alert.id).toBe(b.alert.id);
    const alerts = (await store.alerts.recent(t, {}, 1000)).alerts;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ occurrenceCount: 2, status: 'open', traceIds: expect.arrayContaining(['trace-1', 'trace-2']) });
  });

  it('ten concurrent detections count ten, and a redelivered one counts once', async () => {
    const t = tenant();
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.alerts.recordOccurrence(t, occurrence('agt', `tr-${i}`), newId)));
    const again = await store.alerts.recordOccurrence(t, occurrence('agt', 'tr-3'), newId);
    expect(again.outcome).toBe('duplicate');
    expect((await store.alerts.recent(t, {}, 1000)).alerts[0]!.occurrenceCount).toBe(10);
  });

  it('keeps the latest 20 traces, newest first', async () => {
    const t = tenant();
    for (let i = 0; i < 25; i++) await store.alerts.recordOccurrence(t, occurrence('agt', `tr-${i}`), newId);
    const [alert] = (await store.alerts.recent(t, {}, 1000)).alerts;
    expect(alert!.traceIds).toHaveLength(20);
    expect(alert!.traceIds[0]).toBe('tr-24');
    expect(alert!.occurrenceCount).toBe(25);
  });

  it('keeps counting while acknowledged; after resolution a new alert opens', async () => {
    const t = tenant();
    const { alert } = await store.alerts.recordOccurrence(t, occurrence('agt', 'a'), newId);
    await changeAlertStatus(t, alert.id, 'acknowledge', deps());
    const counted = await store.alerts.recordOccurrence(t, occurrence('agt', 'b'), newId);
    expect(counted).toMatchObject({ outcome: 'counted', alert: { id: alert.id, status: 'acknowledged', occurrenceCount: 2 } });
    await changeAlertStatus(t, alert.id, 'resolve', deps());
    const fresh = await store.alerts.recordOccurrence(t, occurrence('agt', 'c'), newId);
    expect(fresh.outcome).toBe('opened');
    expect(fresh.alert.id).not.toBe(alert.id);
    // The old one cannot be reopened while the new one is active, and the refusal names the new one.
    await expect(changeAlertStatus(t, alert.id, 'reopen', deps())).rejects.toThrow(ValidationError);
    await expect(changeAlertStatus(t, alert.id, 'reopen', deps())).rejects.toMatchObject({ details: { activeAlertId: fresh.alert.id } });
    await changeAlertStatus(t, fresh.alert.id, 'resolve', deps());
    expect((await changeAlertStatus(t, alert.id, 'reopen', deps())).status).toBe('open');
    expect((await store.alerts.recordOccurrence(t, occurrence('agt', 'd'), newId)).alert.id).toBe(alert.id);
  });

  it('spans the occurrences it counted in any order, describes the latest, and is updated when it was recorded', async () => {
    const t = tenant();
    const hour = (h: number) => new Date(Date.UTC(2026, 10, 20, h));
    const recordedAt = new Date('2026-11-21T08:00:00Z');
    for (const [traceId, h] of [
      ['newest', 9],
      ['oldest', 3],
      ['middle', 6],
    ] as const) {
      await store.alerts.recordOccurrence(
        t,
        occurrence('agt', traceId, { key: `error:${traceId}:s`, at: hour(h), message: `${traceId} failed`, recordedAt }),
        newId,
      );
    }
    const [alert] = (await store.alerts.recent(t, {}, 1000)).alerts;
    expect(alert).toMatchObject({
      occurrenceCount: 3,
      firstSeenAt: hour(3).toISOString(),
      lastSeenAt: hour(9).toISOString(),
      message: 'newest failed',
      traceIds: ['newest', 'middle', 'oldest'],
      createdAt: hour(9).toISOString(),
      updatedAt: recordedAt.toISOString(),
    });
  });

  it('keeps agents and types apart', async () => {
    const t = tenant();
    await store.alerts.recordOccurrence(t, occurrence('agt-1', 'x'), newId);
    await store.alerts.recordOccurrence(t, occurrence('agt-2', 'x'), newId);
    await store.alerts.recordOccurrence(t, occurrence('agt-1', 'x', { type: 'highCost', key: 'highCost:x:s' }), newId);
    expect((await store.alerts.recent(t, {}, 1000)).alerts).toHaveLength(3);
    expect((await store.alerts.recent(t, { agentId: 'agt-1' }, 1000)).alerts).toHaveLength(2);
  });

  it('are read for the summary up to a bound, the latest occurrences first, saying when some were left unread', async () => {
    const t = tenant();
    for (let i = 0; i < 5; i++) {
      await store.alerts.recordOccurrence(t, occurrence(`agt-${i}`, `t${i}`, { at: new Date(Date.UTC(2026, 10, 20, 10 + i)) }), newId);
    }
    const bounded = await store.alerts.recent(t, {}, 3);
    expect(bounded.complete).toBe(false);
    expect(bounded.alerts.map((a) => a.agentId)).toEqual(['agt-4', 'agt-3', 'agt-2']);
    const whole = await store.alerts.recent(t, {}, 5);
    expect(whole.alerts).toHaveLength(5);
  });
});

describe('alerts in a date range', () => {
  const HOUR = 3_600_000;
  const ago = (ms: number) => new Date(now.getTime() - ms);
  /** An alert of `agentId` with occurrences at each of `times`. */
  async function firing(t: string, agentId: string, times: Date[]) {
    let alert: AlertRecord | undefined;
    for (const [i, at] of times.entries())
      ({ alert } = await store.alerts.recordOccurrence(t, occurrence(agentId, `${agentId}-${i}`, { key: `error:${agentId}-${i}:s`, at }), newId));
    return alert!;
  }

  it('holds the alerts with an occurrence in the range, listed by their latest, however long ago they opened', async () => {
    const t = tenant();
    now = new Date('2026-11-20T10:00:00Z');
    const stillFiring = await firing(t, 'support-bot', [ago(7 * 24 * HOUR), ago(3 * 24 * HOUR), ago(10 * 60_000)]);
    const quietSince = await firing(t, 'quiet-bot', [ago(3 * 24 * HOUR), ago(2 * 24 * HOUR)]);
    const fresh = await firing(t, 'fresh-bot', [ago(HOUR)]);
    const lastDay = { startMs: ago(24 * HOUR).getTime() };
    const page = await store.alerts.page(t, { status: 'open', ...lastDay }, FIRST);
    expect(page.items.map((a) => a.id)).toEqual([stillFiring.id, fresh.id]);
    expect(await store.alerts.count(t, { status: 'open', ...lastDay })).toEqual({ count: 2, exact: true });
    expect((await store.alerts.recent(t, { agentId: 'support-bot', ...lastDay }, 1000)).alerts.map((a) => a.id)).toEqual([stillFiring.id]);
    // A range in the past: what fired in it, the alert firing through it and on after it too, not what opened after it.
    const fourDaysBack = { startMs: ago(4 * 24 * HOUR).getTime(), endMs: ago(36 * HOUR).getTime() };
    expect((await store.alerts.page(t, fourDaysBack, FIRST)).items.map((a) => a.id)).toEqual([stillFiring.id, quietSince.id]);
    expect((await store.alerts.recent(t, fourDaysBack, 1000)).alerts.map((a) => a.id).sort()).toEqual([stillFiring.id, quietSince.id].sort());
    // Paging by cursor follows the latest occurrence.
    const first = await store.alerts.page(t, {}, { limit: 1, skip: 0 });
    const second = await store.alerts.page(t, {}, { limit: 1, skip: 0, after: first.next });
    expect([...first.items, ...second.items].map((a) => a.id)).toEqual([stillFiring.id, fresh.id]);
  });

  it('lists an active alert written while the lists were by creation time by its latest occurrence once the auto-resolve job has read it', async () => {
    const t = tenant();
    now = new Date('2026-11-20T10:00:00Z');
    const alert = await firing(t, 'old-layout-bot', [ago(7 * 24 * HOUR), ago(10 * 60_000)]);
    const byCreation = collectionIndexKeys(t, alert.agentId, 'ALERTS', Date.parse(alert.createdAt), alert.id, alert.status);
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...alertItem(alert), ...byCreation } }));
    const lastDay = { agentId: 'old-layout-bot', startMs: ago(24 * HOUR).getTime() };
    expect((await store.alerts.page(t, lastDay, FIRST)).items).toEqual([]);
    await autoResolveQuietAlerts({ ...deps(), quietHours: 24 });
    expect((await store.alerts.page(t, lastDay, FIRST)).items).toEqual([expect.objectContaining({ id: alert.id, version: alert.version, status: 'open' })]);
  });
});

describe('auto-resolve', () => {
  it('resolves alerts quiet for longer than the quiet period, and only those', async () => {
    const t = tenant();
    const quiet = await store.alerts.recordOccurrence(t, occurrence('agt-q', 'old', { at: new Date('2026-11-19T09:00:00Z') }), newId);
    const recent = await store.alerts.recordOccurrence(t, occurrence('agt-r', 'new', { at: new Date('2026-11-20T09:30:00Z') }), newId);
    now = new Date('2026-11-20T10:00:00Z');
    const result = await autoResolveQuietAlerts({ ...deps(), quietHours: 24 });
    expect(result.resolved).toBeGreaterThanOrEqual(1);
    expect((await store.alerts.get(t, quiet.alert.id))!.status).toBe('resolved');
    expect((await store.alerts.get(t, recent.alert.id))!.status).toBe('open');
    const second = await autoResolveQuietAlerts({ ...deps(), quietHours: 24 });
    expect(second.resolved).toBe(0);
  });
});

describe('notification cooldown claims', () => {
  it('allow one claim per cooldown, the same job again, and another after the cooldown', async () => {
    const t = tenant();
    const at = new Date('2026-11-20T10:00:00Z');
    expect(await store.alerts.claimNotification(t, 'agt', 'error', 'job-1', at, 5)).toBe(true);
    expect(await store.alerts.claimNotification(t, 'agt', 'error', 'job-1', at, 5)).toBe(true);
    expect(await store.alerts.claimNotification(t, 'agt', 'error', 'job-2', new Date(at.getTime() + 4 * 60_000), 5)).toBe(false);
    expect(await store.alerts.claimNotification(t, 'agt', 'highCost', 'job-3', at, 5)).toBe(true);
    expect(await store.alerts.claimNotification(t, 'agt', 'error', 'job-4', new Date(at.getTime() + 5 * 60_000), 5)).toBe(true);
  });
});
