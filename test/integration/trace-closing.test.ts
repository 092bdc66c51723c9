import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { noMetricsSink } from '#shared/adapters/metrics-sink.ts';
import { bucketStart } from '#shared/domain/analytics/buckets.ts';
import { ALL_AGENTS } from '#shared/domain/analytics/rollup.ts';
import { closeTraces } from '#shared/domain/ingest/close.ts';
import { closeQuietTraces } from '#shared/domain/ingest/closing-job.ts';
import { type IngestMessage, toIngestMessages } from '#shared/domain/ingest/messages.ts';
import { persistTelemetry } from '#shared/domain/ingest/persist.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import { traceState } from '#shared/domain/spans/ports.ts';
import { TRACE_QUIET_MS } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import type { Db } from '#shared/store/client.ts';
import { startStore } from '../support/dynamo.ts';
import { startTestLake } from '../support/lake.ts';
import { canonicalSpan } from '../support/spans.ts';
import { allSummaries } from '../support/traces.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T10:00:30Z');

let db: Db;
let store: Store;
let lake: Awaited<ReturnType<typeof startTestLake>>;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ db, store, stop } = await startStore('aos-trace-closing'));
  lake = await startTestLake();
});
afterAll(async () => {
  await stop();
  await lake.remove();
});

let now = T0;
const clock = { now: () => new Date(now) };
/** What the job and the worker sent to the ingest queue, delivered by `deliver`. */
let queued: IngestMessage[] = [];
const queue = {
  send: async (_queue: string, messages: readonly unknown[]) => {
    queued.push(...(messages as IngestMessage[]));
  },
};
const deps = () => ({ store, clock, ids: randomIds, queue, metricsSink: noMetricsSink, lake });

let tenants = 0;
async function newTenant(): Promise<string> {
  const id = `tnt_closing_${++tenants}`;
  await store.tenants.create({ id, ownerUserId: 'usr_x', subscription: newTrialSubscription(new Date(now)), createdAt: new Date(now).toISOString() });
  return id;
}

const span = (traceId: string, spanId: string, over: Partial<CanonicalSpan> = {}) =>
  canonicalSpan({ traceId, spanId, parentSpanId: 'root', agentName: 'long-runner', startTimeMs: T0, endTimeMs: T0 + 1000, ...over });
const root = (traceId: string, over: Partial<CanonicalSpan> = {}) => span(traceId, 'root', { parentSpanId: null, endTimeMs: T0 + 5000, ...over });

async function ingest(tenantId: string, spans: CanonicalSpan[]): Promise<void> {
  for (const message of toIngestMessages(tenantId, now, { spans, signals: [], logs: [] })) {
    if (message.kind === 'telemetry') await persistTelemetry([message], deps());
  }
}

/** Delivers the close messages queued so far to the worker's handling; answers how many traces they closed. */
async function deliver(): Promise<number> {
  const messages = queued;
  queued = [];
  let closed = 0;
  for (const message of messages) if (message.kind === 'close-traces') closed += await closeTraces(message, deps());
  return closed;
}

/** A run of the closing job, then the worker's handling of what it sent. */
async function runJob(): Promise<{ looked: number; closing: number; closed: number }> {
  const run = await closeQuietTraces({ store, clock, queue }, 60_000);
  return { ...run, closed: await deliver() };
}

const lakeTraces = (tenantId: string) =>
  lake.query({ sql: 'SELECT trace_id, status, span_count FROM lake_traces WHERE tenant_id = ? ORDER BY trace_id', params: [tenantId] });
const summaryOf = async (tenantId: string, traceId: string) => (await store.traces.summaries(tenantId, [traceId])).get(traceId)!;
const stateOf = async (tenantId: string, traceId: string) => traceState((await summaryOf(tenantId, traceId)).summary);
/** How many traces the rollups count in T0's minute and the one before. */
const counted = async (tenantId: string) =>
  store.rollups.counts(
    tenantId,
    ALL_AGENTS,
    [bucketStart(T0, 'minute') - MINUTE, bucketStart(T0, 'minute')].map((startMs) => ({ granularity: 'minute', startMs })),
  );

describe('closing pending traces that went quiet (dynalite)', () => {
  it('closes the traces no span reached for an hour by their status, leaves the recent ones pending and forgets the finished ones', async () => {
    now = T0;
    const t = await newTenant();
    // lost: its root never comes, one span failed; busy: a long run still sending spans; done: its root arrives.
    await ingest(t, [span('lost', 'a'), span('lost', 'b', { status: 'error', errorType: 'ToolError' }), span('busy', 'a'), span('done', 'a')]);
    expect(await store.traces.count(t, {}, ['pending'])).toEqual({ count: 3, exact: true });
    now = T0 + 10 * MINUTE;
    await ingest(t, [root('done')]);
    now = T0 + 30 * MINUTE;
    await ingest(t, [span('busy', 'b', { startTimeMs: T0 + 29 * MINUTE, endTimeMs: T0 + 30 * MINUTE })]);

    now = T0 + TRACE_QUIET_MS - MINUTE;
    expect(await runJob()).toEqual({ looked: 0, closing: 0, closed: 0 });

    now = T0 + TRACE_QUIET_MS + 5 * MINUTE;
    expect(await runJob()).toEqual({ looked: 3, closing: 1, closed: 1 });
    const lost = await summaryOf(t, 'lost');
    expect(lost.summary).toMatchObject({ complete: false, closedAtMs: now, status: 'error', spanCount: 2 });
    expect(await stateOf(t, 'busy')).toBe('pending');
    // Search and exports read the lake: the closed trace is there with its spans, the pending one is not yet.
    expect(await lakeTraces(t)).toEqual([
      { trace_id: 'done', status: 'ok', span_count: 2 },
      { trace_id: 'lost', status: 'error', span_count: 2 },
    ]);
    expect((await allSummaries(db, t)).map((s) => [s.traceId, traceState(s)])).toEqual(
      expect.arrayContaining([
        ['lost', 'error'],
        ['busy', 'pending'],
        ['done', 'ok'],
      ]),
    );
    expect(await store.traces.count(t, {}, ['pending'])).toEqual({ count: 1, exact: true });
    expect(await counted(t)).toEqual({ requestCount: 2, successCount: 1, errorCount: 1 });

    // The busy run's marker moved to an hour after its last span; the finished trace's marker is gone.
    now = T0 + 30 * MINUTE + TRACE_QUIET_MS + MINUTE;
    expect(await runJob()).toMatchObject({ closing: 1, closed: 1 });
    expect((await summaryOf(t, 'busy')).summary).toMatchObject({ closedAtMs: now, status: 'ok' });
    expect(await store.traces.count(t, {}, ['pending'])).toEqual({ count: 0, exact: true });
    expect(await counted(t)).toEqual({ requestCount: 3, successCount: 2, errorCount: 1 });

    // Fifteen minutes on, the job sees both closed and forgets their markers: nothing is due any more.
    now += 16 * MINUTE;
    expect(await runJob()).toEqual({ looked: 1, closing: 0, closed: 0 });
    expect(await store.traces.dueToClose(now + 365 * 24 * 60 * MINUTE, 100)).toEqual([]);
  });

  it('closes and counts a trace once when its close message runs twice, and not at all when a span arrived since the job looked', async () => {
    now = T0;
    const t = await newTenant();
    await ingest(t, [span('twice', 'a'), span('revived', 'a')]);
    now = T0 + TRACE_QUIET_MS + MINUTE;
    await closeQuietTraces({ store, clock, queue }, 60_000);
    const sent = [...queued];
    expect(sent).toEqual([{ kind: 'close-traces', tenantId: t, traceIds: expect.arrayContaining(['twice', 'revived']) }]);
    await ingest(t, [span('revived', 'b', { startTimeMs: T0 + 2000, endTimeMs: T0 + 3000 })]);

    expect(await deliver()).toBe(1);
    queued = sent;
    expect(await deliver()).toBe(0);
    const twice = await summaryOf(t, 'twice');
    expect(twice.summary.closedAtMs).toBe(now);
    expect(await stateOf(t, 'revived')).toBe('pending');
    expect(await counted(t)).toEqual({ requestCount: 1, successCount: 1, errorCount: 0 });
  });

  it('raises a timeout alert once for a trace closed unfinished, not for one closed sooner than the timeout, and checks the spans no agent named', async () => {
    now = T0;
    const t = await newTenant();
    // hung: an agent run whose root never came; its failed tool span, sent first, names no agent, so no alert could be raised for it then.
    await ingest(t, [span('hung', 'tool', { agentName: null, status: 'error', errorType: 'ToolError' })]);
    await ingest(t, [span('hung', 'b'), span('quick', 'a')]);
    const ofType = async (type: string) => (await store.alerts.recent(t, {}, 1000)).alerts.filter((a) => a.type === type);
    expect(await ofType('timeout')).toEqual([]);
    expect(await ofType('error')).toEqual([]);

    now = T0 + TRACE_QUIET_MS + MINUTE;
    expect(await runJob()).toMatchObject({ closed: 2 });
    const [timeout] = await ofType('timeout');
    expect(timeout).toMatchObject({
      occurrenceCount: 2,
      traceIds: expect.arrayContaining(['hung', 'quick']),
      threshold: 30_000,
      message: expect.stringContaining('did not finish'),
    });
    expect(timeout!.message).toContain('no root span arrived');
    expect(await ofType('error')).toEqual([expect.objectContaining({ traceIds: ['hung'], occurrenceCount: 1 })]);

    // Delivered again, and the root arriving at last: the same occurrences.
    await ingest(t, [root('hung', { endTimeMs: T0 + TRACE_QUIET_MS })]);
    expect(await ofType('timeout')).toEqual([expect.objectContaining({ id: timeout!.id, occurrenceCount: 2 })]);
    expect(await ofType('error')).toEqual([expect.objectContaining({ occurrenceCount: 1 })]);

    // A timeout of two hours is not reached by a trace closed after one.
    const patient = await newTenant();
    now = T0;
    await ingest(patient, [span('short', 'a')]);
    const agent = (await store.agents.list(patient)).find((a) => a.name === 'long-runner')!;
    await store.agents.setAlertConfig(patient, agent.id, { thresholds: { timeout: 2 * 60 * MINUTE } }, new Date(now));
    now = T0 + TRACE_QUIET_MS + MINUTE;
    expect(await runJob()).toMatchObject({ closed: 1 });
    expect((await store.alerts.recent(patient, {}, 1000)).alerts.filter((a) => a.type === 'timeout')).toEqual([]);
  });

  it('updates a closed trace with the spans that arrive after, its root too, without making it pending again or counting it twice', async () => {
    now = T0;
    const t = await newTenant();
    await ingest(t, [span('late', 'a')]);
    now = T0 + TRACE_QUIET_MS + MINUTE;
    expect(await runJob()).toMatchObject({ closed: 1 });
    const closedAtMs = now;

    now += 10 * MINUTE;
    await ingest(t, [span('late', 'b', { status: 'error' })]);
    expect((await summaryOf(t, 'late')).summary).toMatchObject({ closedAtMs, spanCount: 2, status: 'error', complete: false });
    expect(await stateOf(t, 'late')).toBe('error');

    // The root started earlier, in the minute before: the trace stays counted where it was closed.
    await ingest(t, [root('late', { startTimeMs: T0 - MINUTE })]);
    expect((await summaryOf(t, 'late')).summary).toMatchObject({ closedAtMs, spanCount: 3, status: 'ok', complete: true, startTimeMs: T0 - MINUTE });
    expect(await stateOf(t, 'late')).toBe('ok');
    expect(await store.traces.count(t, {}, ['pending'])).toEqual({ count: 0, exact: true });
    expect(await counted(t)).toEqual({ requestCount: 1, successCount: 1, errorCount: 0 });
    expect(await runJob()).toMatchObject({ closing: 0, closed: 0 });
  });
});
