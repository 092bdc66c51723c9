import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { noMetricsSink } from '#shared/adapters/metrics-sink.ts';
import { toIngestMessages } from '#shared/domain/ingest/messages.ts';
import { persistTelemetry } from '#shared/domain/ingest/persist.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import type { Store } from '#shared/domain/store.ts';
import { startStore } from '../support/dynamo.ts';
import { startTestLake } from '../support/lake.ts';
import { canonicalSpan } from '../support/spans.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');

let store: Store;
let lake: Awaited<ReturnType<typeof startTestLake>>;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-alert-detection'));
  lake = await startTestLake();
});
afterAll(async () => {
  await stop();
  await lake.remove();
});

const clock = { now: () => new Date(T0 + 60_000) };
const deps = () => ({ store, clock, ids: randomIds, queue: { send: async () => {} }, metricsSink: noMetricsSink, lake });

let tenants = 0;
async function newTenant(): Promise<string> {
  const id = `tnt_detection_${++tenants}`;
  await store.tenants.create({ id, ownerUserId: 'usr_x', subscription: newTrialSubscription(clock.now()), createdAt: clock.now().toISOString() });
  return id;
}

async function ingest(tenantId: string, spans: CanonicalSpan[]): Promise<void> {
  for (const message of toIngestMessages(tenantId, clock.now().getTime(), { spans, signals: [], logs: [] })) {
    if (message.kind === 'telemetry') await persistTelemetry([message], deps());
  }
}

const timedOut = { status: 'error', errorType: 'TimeoutError', statusMessage: 'deadline exceeded' } as const;
const root = (traceId: string, over: Partial<CanonicalSpan> = {}) =>
  canonicalSpan({ traceId, spanId: 'root', agentName: 'support-bot', startTimeMs: T0, endTimeMs: T0 + 12_000, ...over });
const tool = (traceId: string, spanId: string, over: Partial<CanonicalSpan> = {}) =>
  canonicalSpan({ traceId, spanId, parentSpanId: 'root', kind: 'tool', agentName: 'support-bot', startTimeMs: T0, endTimeMs: T0 + 11_000, ...over });

/** The tenant's alerts of a type, after its agent's timeout threshold is set to 10 s by a first, quick trace. */
async function withTimeoutOf10s(tenantId: string) {
  await ingest(tenantId, [root('warm-up', { endTimeMs: T0 + 100 })]);
  const agent = (await store.agents.list(tenantId)).find((a) => a.name === 'support-bot')!;
  await store.agents.setAlertConfig(tenantId, agent.id, { thresholds: { timeout: 10_000 } }, clock.now());
  return async (type: string) => (await store.alerts.recent(tenantId, {}, 1000)).alerts.filter((a) => a.type === type);
}

describe('one timeout of a trace is one occurrence', () => {
  it('a root span that failed with a timeout and ran past the threshold counts once, delivered twice too', async () => {
    const t = await newTenant();
    const ofType = await withTimeoutOf10s(t);
    await ingest(t, [root('to-2', timedOut)]);
    await ingest(t, [root('to-2', timedOut)]);
    expect(await ofType('timeout')).toEqual([expect.objectContaining({ occurrenceCount: 1, traceIds: ['to-2'], threshold: null })]);
    expect(await ofType('error')).toEqual([]);
  });

  it('a tool span that timed out inside a root that ran past the threshold counts once, whether the root came later or with it', async () => {
    const t = await newTenant();
    const ofType = await withTimeoutOf10s(t);
    await ingest(t, [tool('to-3', 'lookup', timedOut)]);
    await ingest(t, [root('to-3')]);
    await ingest(t, [tool('to-3b', 'lookup', timedOut), root('to-3b')]);
    const [timeout] = await ofType('timeout');
    expect(timeout).toMatchObject({ occurrenceCount: 2, traceIds: expect.arrayContaining(['to-3', 'to-3b']) });
    expect(timeout!.message).toContain('tool span "lookup" timed out');
  });

  it('keeps separate failures apart: two tools that timed out in one trace, and a slow trace whose spans did not time out', async () => {
    const t = await newTenant();
    const ofType = await withTimeoutOf10s(t);
    await ingest(t, [tool('to-4', 'a', timedOut), tool('to-4', 'b', timedOut), root('to-4')]);
    await ingest(t, [tool('slow', 'a'), root('slow')]);
    expect(await ofType('timeout')).toEqual([expect.objectContaining({ occurrenceCount: 3 })]);
  });
});
