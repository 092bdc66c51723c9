import { SendMessageBatchCommand, type SendMessageBatchCommandInput, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomIds } from '#shared/adapters/ids.ts';
import { sqsQueue } from '#shared/adapters/queue.ts';
import { ServiceUnavailableError } from '#shared/domain/errors.ts';
import { acceptTelemetry } from '#shared/domain/ingest/accept.ts';
import { parseSpans } from '#shared/domain/ingest/native-spans.ts';
import { currentPeriod, newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import type { Store } from '#shared/domain/store.ts';
import { startStore } from '../support/dynamo.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, stop } = await startStore('aos-outage'));
});
afterAll(async () => {
  sqs.restore();
  await stop();
});

// SQS's outage is played by the client mock; the store is dynalite.
const sqs = mockClient(SQSClient);
beforeEach(() => sqs.reset());
const queue = () => sqsQueue({ QUEUE_URL_INGEST: 'https://sqs.us-east-1.amazonaws.com/000000000000/ingest' }, { client: new SQSClient({}) });

const now = new Date();
const spans = parseSpans([{ traceId: 't', spanId: 's', name: 'n', startTime: now.getTime() - 1000, endTime: now.getTime() }]).items;

/** A new trial tenant, with SQS answering every send with 503; resolves with a reader of the tenant's span count. */
async function tenantWhileQueueIsDown(tenantId: string): Promise<() => Promise<number>> {
  const subscription = newTrialSubscription(now);
  await store.tenants.create({ id: tenantId, ownerUserId: 'u', subscription, createdAt: now.toISOString() });
  sqs
    .on(SendMessageBatchCommand)
    .rejects(new SQSServiceException({ name: 'ServiceUnavailable', $fault: 'server', message: 'Service Unavailable', $metadata: { httpStatusCode: 503 } }));
  return () => store.tenants.spansUsed(tenantId, currentPeriod(subscription, now).start.toISOString());
}

describe('SQS outage at ingestion', () => {
  it('answers "unavailable, retry" and counts nothing against the quota', async () => {
    const spansUsed = await tenantWhileQueueIsDown('tnt_outage');
    const deps = { store, clock: { now: () => now }, ids: randomIds, queue: queue() };
    const attempt = acceptTelemetry('tnt_outage', { spans, signals: [], logs: [] }, [], deps);
    await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: 'INTERNAL_ERROR' });
    expect(await spansUsed()).toBe(0);
  });

  it('still answers "unavailable, retry" when giving the spans back fails too, the count then that request too high', async () => {
    const spansUsed = await tenantWhileQueueIsDown('tnt_give_back');
    const givingBackFails: Store = {
      ...store,
      tenants: {
        ...store.tenants,
        countSpans: (tenantId, periodStart, n, expiresAt, limit) =>
          n < 0 ? Promise.reject(new Error('the table is unavailable')) : store.tenants.countSpans(tenantId, periodStart, n, expiresAt, limit),
      },
    };
    const attempt = acceptTelemetry('tnt_give_back', { spans, signals: [], logs: [] }, [], {
      store: givingBackFails,
      clock: { now: () => now },
      ids: randomIds,
      queue: queue(),
    });
    await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(await spansUsed()).toBe(spans.length);
  });

  it('accepts once the queue is back', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: input.Entries!.map((e) => ({ Id: e.Id!, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'md5' })),
      Failed: [],
    }));
    const deps = { store, clock: { now: () => now }, ids: randomIds, queue: queue() };
    expect(await acceptTelemetry('tnt_outage', { spans, signals: [], logs: [] }, [], deps)).toMatchObject({ accepted: 1 });
  });
});
