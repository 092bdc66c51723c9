import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsQueue } from '../../shared/adapters/queue.ts';
import { acceptTelemetry } from '../../shared/domain/ingest/accept.ts';
import { parseSpans } from '../../shared/domain/ingest/native-spans.ts';
import { ServiceUnavailableError } from '../../shared/domain/errors.ts';
import { currentPeriod, newTrialSubscription } from '../../shared/domain/plans/subscription.ts';
import type { Store } from '../../shared/store/index.ts';
import { createStore } from '../support/store.ts';
import { startDynamo } from '../support/dynamo.ts';
import { CREDENTIALS } from '../support/fake-aws.ts';

let store: Store;
let stop: () => Promise<void>;
beforeAll(async () => {
  const dynamo = await startDynamo('aos-outage');
  store = createStore(dynamo.db);
  stop = dynamo.stop;
});
afterAll(async () => {
  await stop();
});

/** The queue port against an SQS that `answer` plays (fetch stands in for the network). */
const queueAnswering = (answer: (entries: { Id: string; MessageBody: string }[]) => Response) =>
  sqsQueue(
    { QUEUE_URL_INGEST: 'https://sqs.us-east-1.amazonaws.com/000000000000/ingest', AWS_REGION: 'us-east-1' },
    { credentials: CREDENTIALS, attempts: 1, fetch: async (_url, init) => answer((JSON.parse(String(init?.body)) as { Entries: { Id: string; MessageBody: string }[] }).Entries) },
  );

const now = new Date();
const spans = parseSpans([{ traceId: 't', spanId: 's', name: 'n', startTime: now.getTime() - 1000, endTime: now.getTime() }]).items;

describe('SQS outage at ingestion', () => {
  it('answers "unavailable, retry" and counts nothing against the quota', async () => {
    const subscription = newTrialSubscription(now);
    await store.tenants.create({ id: 'tnt_outage', ownerUserId: 'u', subscription, createdAt: now.toISOString() });
    const unavailable = () => new Response(JSON.stringify({ __type: 'com.amazonaws.sqs#ServiceUnavailable', message: 'Service Unavailable' }), { status: 503 });
    const deps = { store, clock: { now: () => now }, queue: queueAnswering(unavailable) };
    const attempt = acceptTelemetry('tnt_outage', { spans, signals: [], logs: [] }, [], deps);
    await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: 'INTERNAL_ERROR' });
    expect(await store.tenants.spansUsed('tnt_outage', currentPeriod(subscription, now).start.toISOString())).toBe(0);
  });

  it('accepts once the queue is back', async () => {
    const accepted = (entries: { Id: string; MessageBody: string }[]) =>
      new Response(JSON.stringify({ Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: createHash('md5').update(e.MessageBody).digest('hex') })), Failed: [] }));
    const deps = { store, clock: { now: () => now }, queue: queueAnswering(accepted) };
    expect(await acceptTelemetry('tnt_outage', { spans, signals: [], logs: [] }, [], deps)).toMatchObject({ accepted: 1 });
  });
});
