import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { LAST_SEEN_RESOLUTION_MS } from '#shared/domain/agents/ports.ts';
import { LIST_LAYOUT, reindexStep } from '#shared/domain/maintenance/reindex.ts';
import { recordSessions } from '#shared/domain/sessions/ingest.ts';
import { type StoredSpan, summarizeTrace, TRACE_QUIET_MS } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { timeSortKey } from '#shared/store/keys.ts';
import { llm, spansOf, tool } from '../fixtures/judge/build.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { noSends, sessionDeps } from '../support/store.ts';

let store: Store;
let db: Db;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore('aos-reindex'));
});
afterAll(() => stop());

const EXPIRES = 2_000_000_000;
const T0 = Date.UTC(2026, 0, 5, 12);
const tenantId = 'tnt_old';
const FIRST = { limit: 50, skip: 0 };
const clock = { now: () => new Date() };

/** Sets an item's attributes as an earlier version of the service wrote them (its index entries, fields it lacked). */
async function asWrittenBefore(key: Record<string, unknown>, set: Record<string, unknown>, remove: string[] = []) {
  const names = Object.keys(set);
  await db.doc.send(
    new UpdateCommand({
      TableName: db.tableName,
      Key: key,
      UpdateExpression: [
        names.length ? `SET ${names.map((name, i) => `${name} = :v${i}`).join(', ')}` : '',
        remove.length ? `REMOVE ${remove.join(', ')}` : '',
      ].join(' '),
      ...(names.length ? { ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, set[name]])) } : {}),
    }),
  );
}

describe('re-indexing items written before the bounded-lists layout', () => {
  it('moves every kind of item into its lists, builds the sessions, and then only checks it is done', async () => {
    await store.agents.create(agentRecord(tenantId, 'agt_old', undefined, { name: 'old-bot' }));
    const traceIds = Array.from({ length: 30 }, (_, i) => `tr-old-${i}`);
    for (const [i, traceId] of traceIds.entries()) {
      const spans: StoredSpan[] = spansOf(traceId, { input: 'q', steps: [tool('search', {}, 'r'), llm('a')], output: 'a' }, T0 + i * 1000).map((s) => ({
        ...s,
        agentId: 'agt_old',
        sessionId: `sess-${i % 3}`,
        userId: 'user-old',
      }));
      await store.traces.putSpans(tenantId, spans, EXPIRES, 500);
      // The first summary's revision is past its spans' write time, as a worker writes one over a later batch's.
      await store.traces.putSummary(tenantId, summarizeTrace(spans), i === 0 ? 900 : 500, EXPIRES);
      await asWrittenBefore(
        keys.traceSummary(tenantId, traceId),
        { GSI2PK: `TENANT#${tenantId}#AGENT#agt_old#TRACES`, GSI2SK: timeSortKey(T0 + i * 1000, traceId) },
        ['GSI1PK', 'GSI1SK', 'GSI3PK', 'GSI3SK', 'toolNames', 'errorTypes'],
      );
    }
    await store.logs.put(
      tenantId,
      [
        {
          id: 'log_1',
          timestampMs: T0,
          traceId: null,
          spanId: null,
          agentId: 'agt_old',
          agentName: 'old-bot',
          level: 'error',
          message: 'boom',
          attributes: {},
          timestamp: new Date(T0).toISOString(),
        },
      ],
      EXPIRES,
    );
    await store.signals.put(
      tenantId,
      [
        {
          id: 'sig_1',
          timestampMs: T0,
          traceId: null,
          spanId: null,
          agentId: 'agt_old',
          agentName: 'old-bot',
          signalName: 'score',
          value: 1,
          metadata: {},
          timestamp: new Date(T0).toISOString(),
        },
      ],
      EXPIRES,
    );
    const { alert } = await store.alerts.recordOccurrence(
      tenantId,
      {
        agentId: 'agt_old',
        agentName: 'old-bot',
        type: 'error',
        category: 'threshold',
        severity: 'high',
        message: 'm',
        value: null,
        threshold: null,
        reasoning: null,
        traceId: traceIds[0]!,
        key: 'k',
        at: new Date(T0),
        recordedAt: new Date(T0),
      },
      () => 'alr_old',
    );
    const logKey = { PK: keys.untracedPartition(tenantId, 'LOGS', '2026-01-05'), SK: `LOG#${timeSortKey(T0, 'log_1')}` };
    const signalKey = { PK: keys.untracedPartition(tenantId, 'SIGNALS', '2026-01-05'), SK: `SIGNAL#${timeSortKey(T0, 'sig_1')}` };
    await asWrittenBefore(logKey, { GSI1PK: `TENANT#${tenantId}#LOGS`, GSI2PK: `TENANT#${tenantId}#AGENT#agt_old#LOGS` });
    await asWrittenBefore(signalKey, {}, ['GSI3PK', 'GSI3SK']);
    await asWrittenBefore(keys.alert(tenantId, alert.id), { GSI1PK: `TENANT#${tenantId}#ALERTS`, GSI2PK: `TENANT#${tenantId}#AGENT#agt_old#ALERTS` });

    const listed = async () => ({
      traces: (await store.traces.page(tenantId, { toolName: 'search' }, FIRST)).items.length,
      agentTraces: (await store.traces.page(tenantId, { agentId: 'agt_old' }, FIRST)).items.length,
      userTraces: (await store.traces.page(tenantId, { userId: 'user-old' }, FIRST)).items.length,
      sessions: (await store.sessions.page(tenantId, {}, FIRST)).items.length,
      errorLogs: (await store.logs.page(tenantId, { level: 'error' }, FIRST)).items.length,
      scores: (await store.signals.page(tenantId, { signalName: 'score' }, FIRST)).items.length,
      openAlerts: (await store.alerts.page(tenantId, { status: 'open' }, FIRST)).items.length,
    });
    expect(await listed()).toEqual({ traces: 0, agentTraces: 0, userTraces: 0, sessions: 0, errorLogs: 0, scores: 0, openAlerts: 0 });

    // One small page a run: the walk goes on where the last run stopped.
    let runs = 0;
    for (let done = false; !done; runs++) done = (await reindexStep({ store, clock, ids: randomIds, queue: noSends }, 0, 25)).done;
    expect(runs).toBeGreaterThan(1);
    expect(await listed()).toEqual({ traces: 30, agentTraces: 30, userTraces: 30, sessions: 3, errorLogs: 1, scores: 1, openAlerts: 1 });
    expect(await store.sessions.get(tenantId, 'sess-0')).toMatchObject({ traceCount: 10 });
    const lastSeenMs = Date.parse((await store.agents.get(tenantId, 'agt_old'))!.lastSeenAt!);
    expect(T0 + 29_000 - lastSeenMs).toBeLessThan(LAST_SEEN_RESOLUTION_MS);
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.traceSummary(tenantId, traceIds[0]!) }));
    expect(Item?.['GSI2PK']).toBe(keys.agentCollection(tenantId, 'agt_old', 'TRACES', 'ok'));

    expect(await reindexStep({ store, clock, ids: randomIds, queue: noSends }, 60_000)).toEqual({ rewritten: 0, done: true });
    expect(await store.reindex.progress(LIST_LAYOUT)).toMatchObject({ done: true });
  });

  it('gives a pending trace stored before traces were closed its close marker, and keeps a closed trace closed', async () => {
    const t = 'tnt_pending';
    const withoutRoot = (traceId: string) =>
      spansOf(traceId, { input: 'q', steps: [llm('a')], output: 'a' }, T0).filter((s) => s.parentSpanId !== null && s.parentSpanId !== undefined);
    for (const traceId of ['tr-pending', 'tr-closed']) {
      await store.traces.putSpans(t, withoutRoot(traceId), EXPIRES, 500);
      await store.traces.putSummary(t, summarizeTrace(withoutRoot(traceId)), 500, EXPIRES);
    }
    const marked = await store.traces.dueToClose(T0 + 365 * 86_400_000, 100);
    expect(marked.filter((m) => m.tenantId === t).map((m) => m.traceId)).toEqual(expect.arrayContaining(['tr-pending', 'tr-closed']));
    for (const marker of marked) await store.traces.forgetClose(marker); // as stored before the markers
    const stored = (await store.traces.summaries(t, ['tr-closed'])).get('tr-closed')!;
    expect(await store.traces.closeSummary(t, stored, 900)).toBeDefined();

    await store.reindex.saveProgress(LIST_LAYOUT, { done: false, items: 0 });
    for (let done = false; !done; ) done = (await reindexStep({ store, clock, ids: randomIds, queue: noSends }, 60_000)).done;
    const due = await store.traces.dueToClose(T0 + 365 * 86_400_000, 100);
    expect(due.filter((m) => m.tenantId === t)).toEqual([{ tenantId: t, traceId: 'tr-pending', dueAtMs: 500 + TRACE_QUIET_MS, expiresAt: EXPIRES }]);
    expect((await store.traces.summaries(t, ['tr-closed'])).get('tr-closed')!.summary).toMatchObject({ closedAtMs: 900, complete: false });
    expect(await store.traces.count(t, {}, ['pending'])).toEqual({ count: 1, exact: true });
  });

  it('moves a trace whose stored summary names another session than its spans, out of the old one', async () => {
    const t = 'tnt_moved';
    const spans = spansOf('tr-moved', { input: 'q', steps: [llm('a')], output: 'a' }, T0).map((s) => ({ ...s, sessionId: 'sess-new' }));
    await store.traces.putSpans(t, spans, EXPIRES, 500);
    const stale = { ...summarizeTrace(spans), sessionId: 'sess-old' };
    await store.traces.putSummary(t, stale, 500, EXPIRES);
    await recordSessions(t, [{ summary: stale, revision: 500 }], EXPIRES, sessionDeps(store));
    expect(await store.sessions.get(t, 'sess-old')).toMatchObject({ traceCount: 1 });

    await store.reindex.saveProgress(LIST_LAYOUT, { done: false, items: 0 });
    for (let done = false; !done; ) done = (await reindexStep({ store, clock, ids: randomIds, queue: noSends }, 60_000)).done;
    expect(await store.sessions.get(t, 'sess-old')).toBeUndefined();
    expect((await store.sessions.tracesPage(t, 'sess-new', {}, FIRST, 'oldest-first')).items.map((i) => i.traceId)).toEqual(['tr-moved']);
  });

  it('never brings back a trace deleted while it walks', async () => {
    const spans = spansOf('tr-gone', { input: 'q', steps: [llm('a')], output: 'a' }, T0);
    await store.traces.putSpans('tnt_gone', spans, EXPIRES, 500);
    const summary = summarizeTrace(spans);
    await store.traces.deleteTrace('tnt_gone', 'tr-gone');
    expect(await store.traces.putSummary('tnt_gone', summary, 500, EXPIRES, { mustExist: true })).toBe(false);
    expect(await store.traces.getSummary('tnt_gone', 'tr-gone')).toBeUndefined();
  });
});
