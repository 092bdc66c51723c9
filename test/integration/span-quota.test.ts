import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { ForbiddenError, ServiceUnavailableError } from '#shared/domain/errors.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { parseSpans } from '#shared/domain/ingest/native-spans.ts';
import { PLANS } from '#shared/domain/plans/plans.ts';
import { currentPeriod, newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { QueuePort } from '#shared/domain/ports.ts';
import type { Store } from '#shared/domain/store.ts';
import { startStore } from '../support/dynamo.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-span-quota'));
});
afterAll(() => stop());

const now = new Date();
const subscription = newTrialSubscription(now);
const periodStart = currentPeriod(subscription, now).start.toISOString();
const limit = PLANS.trial.features.spans;

function spansOf(traceId: string, count: number, agent = 'quota-agent') {
  const start = now.getTime() - 1000;
  return parseSpans(
    Array.from({ length: count }, (_, i) => ({ traceId, spanId: `${traceId}-${i}`, name: 'step', agentName: agent, startTime: start, endTime: start + 10 })),
  ).items;
}

/** A queue that keeps what it was sent. */
function recordingQueue(): QueuePort & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    async send(_queue, messages) {
      sent.push(...messages);
    },
  } as QueuePort & { sent: unknown[] };
}

async function tenantWith(id: string, spansUsed: number) {
  await store.tenants.create({ id, ownerUserId: 'u', subscription, createdAt: now.toISOString() });
  if (spansUsed > 0) await store.tenants.countSpans(id, periodStart, spansUsed, Math.floor(now.getTime() / 1000) + 86_400);
}

describe('the span quota at ingestion', () => {
  it('lets concurrent requests at the brink of the limit through only as far as they fit', async () => {
    await tenantWith('tnt_brink', limit - 10);
    const queue = recordingQueue();
    const deps = { store, queue, clock: { now: () => now }, ids: randomIds };
    const attempts = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => acceptTelemetry('tnt_brink', { spans: spansOf(`brink-${i}`, 4), signals: [], logs: [] }, [], deps)),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(2);
    for (const refused of attempts.filter((a) => a.status === 'rejected')) {
      expect(refused.reason).toBeInstanceOf(ForbiddenError);
      expect(refused.reason.message).toMatch(/Span limit reached: the Free Trial plan allows 10000 spans per period; 999\d used, this request has 4/);
    }
    expect(await store.tenants.spansUsed('tnt_brink', periodStart)).toBe(limit - 2);
    expect(queue.sent.length).toBe(2);
  });

  it('refuses a request larger than the whole quota without counting it', async () => {
    await tenantWith('tnt_large', 0);
    const deps = { store, queue: recordingQueue(), clock: { now: () => now }, ids: randomIds };
    const attempt = acceptTelemetry('tnt_large', { spans: spansOf('large', limit + 1), signals: [], logs: [] }, [], deps);
    await expect(attempt).rejects.toThrow(/Span limit reached.*0 used, this request has 10001/);
    expect(await store.tenants.spansUsed('tnt_large', periodStart)).toBe(0);
    // Nor does it create the new agent it names; neither does a request the queue then refuses.
    expect(await store.agents.list('tnt_large')).toEqual([]);
    const downQueue: QueuePort = {
      async send() {
        throw new Error('queue unavailable');
      },
    };
    const refused = acceptTelemetry('tnt_large', { spans: spansOf('down', 2, 'never-queued'), signals: [], logs: [] }, [], { ...deps, queue: downQueue });
    await expect(refused).rejects.toThrow(ServiceUnavailableError);
    expect(await store.agents.list('tnt_large')).toEqual([]);
    await acceptTelemetry('tnt_large', { spans: spansOf('up', 2, 'queued'), signals: [], logs: [] }, [], deps);
    expect((await store.agents.list('tnt_large')).map((a) => a.name)).toEqual(['queued']);
  });

  it('gives the spans back when the request is refused for a new agent beyond the plan', async () => {
    await tenantWith('tnt_agents', 100);
    for (let i = 0; i < PLANS.trial.features.agents; i++) {
      const at = now.toISOString();
      await store.agents.ensure({
        id: `agt_${i}`,
        tenantId: 'tnt_agents',
        name: `agent-${i}`,
        description: '',
        profileSettings: { learningEnabled: true },
        source: 'implicit',
        createdAt: at,
        updatedAt: at,
      });
    }
    const queue = recordingQueue();
    const deps = { store, queue, clock: { now: () => now }, ids: randomIds };
    const attempt = acceptTelemetry('tnt_agents', { spans: spansOf('agents', 3, 'one-too-many'), signals: [], logs: [] }, [], deps);
    await expect(attempt).rejects.toThrow(
      'Agent limit reached: the Free Trial plan allows 10 agents and 10 exist, so none can be created; this request names 1 new (one-too-many) and none of it was accepted',
    );
    expect(await store.tenants.spansUsed('tnt_agents', periodStart)).toBe(100);
    expect(queue.sent).toEqual([]);

    await acceptTelemetry('tnt_agents', { spans: spansOf('known-agent', 3, 'agent-4'), signals: [], logs: [] }, [], deps);
    expect(await store.tenants.spansUsed('tnt_agents', periodStart)).toBe(103);
  });
});
