import { GetQueueAttributesCommand, GetQueueUrlCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  type DynamoDBDocumentClientResolvedConfig,
  GetCommand,
  PutCommand,
  QueryCommand,
  type ServiceInputTypes,
  type ServiceOutputTypes,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '#shared/adapters/clock.ts';
import { randomIds } from '#shared/adapters/ids.ts';
import { noMetricsSink } from '#shared/adapters/metrics-sink.ts';
import { catalog, queueUrlEnv } from '#shared/catalog.ts';
import { config } from '#shared/config.ts';
import { deleteAgent } from '#shared/domain/agents/agents.ts';
import { NotFoundError, ServiceUnavailableError } from '#shared/domain/errors.ts';
import { newArrival } from '#shared/domain/ingest/arrival.ts';
import { closeTraces } from '#shared/domain/ingest/close.ts';
import { toIngestMessages } from '#shared/domain/ingest/messages.ts';
import { parseSignals } from '#shared/domain/ingest/native-signals.ts';
import { purgeAgent } from '#shared/domain/ingest/persist.ts';
import { LIST_LAYOUT, reindexStep } from '#shared/domain/maintenance/reindex.ts';
import { decodeLogsRequest } from '#shared/domain/otlp/decode.ts';
import { mapLogsRequest } from '#shared/domain/otlp/logs.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { recordSessions } from '#shared/domain/sessions/ingest.ts';
import { getSession, listSessions } from '#shared/domain/sessions/queries.ts';
import { LARGE_SESSION_TRACES, REFRESH_OVERDUE_AFTER_MS, refreshDelaySeconds } from '#shared/domain/sessions/sessions.ts';
import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import { listTraces } from '#shared/domain/spans/queries.ts';
import { TRACE_QUIET_MS } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import { metrics } from '#shared/observability/metrics.ts';
import { agentsRepository } from '#shared/store/agents.ts';
import { batchGet, batchWrite, putRequests } from '#shared/store/batch.ts';
import { createDb, type Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { sessionsRepository, sessionTraceItem } from '#shared/store/sessions.ts';
import { type IngestPorts, ingestHandler } from '../../functions/workers/ingest.ts';
import { startStore } from '../support/dynamo.ts';
import { lambdaContext } from '../support/http-event.ts';
import { startTestLake } from '../support/lake.ts';
import { startTestService } from '../support/service.ts';
import { canonicalSpan } from '../support/spans.ts';
import { createStore, noSends, sessionDeps } from '../support/store.ts';
import { allSummaries } from '../support/traces.ts';
import { logsRequest } from '../unit/otlp/otlp-json.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const span = (traceId: string, spanId: string, parentSpanId: string | null, over: Partial<CanonicalSpan> = {}): CanonicalSpan =>
  canonicalSpan({
    traceId,
    spanId,
    parentSpanId,
    kind: 'llm',
    agentName: 'faulty-agent',
    startTimeMs: T0,
    endTimeMs: T0 + 1000,
    model: 'gpt-4o',
    inputTokens: 100,
    outputTokens: 10,
    ...over,
  });

function sqsEvent(bodies: unknown[], ids = bodies.map((_, i) => `m${i}`)): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: ids[i]!,
      receiptHandle: 'r',
      body: JSON.stringify(body),
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ingest',
      awsRegion: 'us-east-1',
      messageAttributes: {},
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    })),
  };
}

describe('the ingest worker under faults (dynalite)', () => {
  let db: Db;
  let store: Store;
  let stop: () => Promise<void>;
  let lake: Awaited<ReturnType<typeof startTestLake>>;
  beforeAll(async () => {
    ({ db, store, stop } = await startStore('aos-faults'));
    lake = await startTestLake();
  });
  afterAll(async () => {
    await stop();
    await lake.remove();
  });

  let n = 0;
  async function newTenant() {
    const id = `tnt_fault_${++n}`;
    await store.tenants.create({ id, ownerUserId: 'usr_x', subscription: newTrialSubscription(new Date()), createdAt: new Date().toISOString() });
    return id;
  }
  /** The store, each summary written through `around`, which is given the write to make. */
  const aroundPutSummary = (around: (write: () => Promise<boolean>) => Promise<boolean>): Store => ({
    ...store,
    traces: { ...store.traces, putSummary: (...args: Parameters<Store['traces']['putSummary']>) => around(() => store.traces.putSummary(...args)) },
  });
  /** The store, with these of its sessions' methods in place of its own. */
  const withSessions = (sessions: Partial<Store['sessions']>): Store => ({ ...store, sessions: { ...store.sessions, ...sessions } });
  /** The store, `meanwhile` run before each trace is marked as being deleted, or deleted: the purge's first and last steps. */
  const beforePurgeStep = (step: 'markDeleting' | 'deleteTrace', meanwhile: (tenantId: string) => Promise<unknown>): Store => {
    const traces = store.traces;
    const meanwhileFirst =
      <A extends unknown[], R>(call: (tenantId: string, ...rest: A) => Promise<R>) =>
      async (tenantId: string, ...rest: A): Promise<R> => {
        await meanwhile(tenantId);
        return call(tenantId, ...rest);
      };
    return {
      ...store,
      traces:
        step === 'markDeleting'
          ? { ...traces, markDeleting: meanwhileFirst(traces.markDeleting) }
          : { ...traces, deleteTrace: meanwhileFirst(traces.deleteTrace) },
    };
  };
  const portsWith = (storeOverride: Store): IngestPorts =>
    ({
      store: storeOverride,
      clock: { now: () => new Date() },
      ids: randomIds,
      queue: { send: async () => {} },
      metricsSink: noMetricsSink,
      lake,
    }) as unknown as IngestPorts;

  it('a crash between writing spans and the summary loses nothing and duplicates nothing on redelivery', async () => {
    const tenantId = await newTenant();
    const message = toIngestMessages(tenantId, T0, {
      spans: [span('t1', 'root', null, { kind: 'agent' }), span('t1', 'child', 'root')],
      signals: [],
      logs: [],
    });
    let crashes = 1;
    const crashingStore = aroundPutSummary(async (write) => {
      if (crashes-- > 0) throw new Error('Lambda timed out');
      return write();
    });
    const handler = ingestHandler(() => portsWith(crashingStore));
    expect((await handler(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
    expect((await handler(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]);
    expect((await handler(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]); // a late duplicate delivery

    expect(await store.traces.spansOf(tenantId, 't1')).toHaveLength(2);
    expect(await store.traces.getSummary(tenantId, 't1')).toMatchObject({ spanCount: 2, inputTokens: 100, rootSpanId: 'root' });
    expect(await store.agents.list(tenantId)).toHaveLength(1);
  });

  it('keeps each of identical signals and logs sent without a time in one request, each once however often its message is delivered', async () => {
    const tenantId = await newTenant();
    const arrival = newArrival(T0);
    const signals = parseSignals(
      [1, 2, 3].map(() => ({ signalName: 'thumbs.up', value: 1, agentName: 'faulty-agent' })),
      arrival,
    ).items;
    const record = { severityText: 'INFO', body: { stringValue: 'retrying the tool' } };
    const { logs } = mapLogsRequest(decodeLogsRequest(Buffer.from(JSON.stringify(logsRequest([record, record]))), 'json'), arrival);
    // The same signal again, timed: it keeps the id it always had, once however often it is sent.
    const timed = parseSignals([{ signalName: 'thumbs.up', value: 1, agentName: 'faulty-agent', timestamp: T0 }], arrival).items;
    const message = toIngestMessages(tenantId, T0, { spans: [], signals: [...signals, ...timed, ...timed], logs });
    const handler = ingestHandler(() => portsWith(store));
    expect((await handler(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]);
    expect((await handler(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]); // a redelivery

    const stored = await store.signals.list(tenantId, { signalName: 'thumbs.up' });
    expect(stored).toHaveLength(4);
    expect(stored.every((s) => s.timestamp === new Date(T0).toISOString() && !('arrivalKey' in s))).toBe(true);
    expect(await store.logs.list(tenantId, {})).toHaveLength(2);
    // Another request with the same signals, in the same millisecond, keeps its own.
    const again = parseSignals([{ signalName: 'thumbs.up', value: 1, agentName: 'faulty-agent' }], newArrival(T0)).items;
    await handler(sqsEvent(toIngestMessages(tenantId, T0, { spans: [], signals: again, logs: [] })), lambdaContext);
    expect(await store.signals.list(tenantId, { signalName: 'thumbs.up' })).toHaveLength(5);
  });

  it('stores a trace and a session whose costs add up past 2^53, each span within it, holding the sums at the limit', async () => {
    const tenantId = await newTenant();
    const costly = (traceId: string, spanId: string) => span(traceId, spanId, spanId === 'root' ? null : 'root', { sessionId: 'costly', cost: 5e15 });
    const spans = [span('c1', 'root', null, { sessionId: 'costly' }), costly('c1', 'model-1'), costly('c1', 'model-2'), costly('c2', 'root')];
    const message = toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] });
    expect((await ingestHandler(() => portsWith(store))(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]);
    expect(await store.traces.getSummary(tenantId, 'c1')).toMatchObject({ spanCount: 3, cost: Number.MAX_SAFE_INTEGER });
    expect(await store.sessions.get(tenantId, 'costly')).toMatchObject({ traceCount: 2, cost: Number.MAX_SAFE_INTEGER });
  });

  it("moves a trace's session copy to its new start when a batch that started earlier sends its span again with another start", async () => {
    // The stored summary's revision is the later batch's time; the earlier batch's spans carry its own.
    const tenantId = await newTenant();
    const storeAt = (nowMs: number, startTimeMs: number) =>
      ingestHandler(() => ({ ...portsWith(store), clock: { now: () => new Date(nowMs) } }))(
        sqsEvent(
          toIngestMessages(tenantId, T0, {
            spans: [span('resent', 'root', null, { sessionId: 'conv', startTimeMs, endTimeMs: T0 + 9000 })],
            signals: [],
            logs: [],
          }),
        ),
        lambdaContext,
      );
    const later = Date.now();
    expect((await storeAt(later, T0 + 1000)).batchItemFailures).toEqual([]);
    expect((await storeAt(later - 5000, T0)).batchItemFailures).toEqual([]);

    expect(await store.traces.getSummary(tenantId, 'resent')).toMatchObject({ startTimeMs: T0 });
    const listed = await store.sessions.tracesPage(tenantId, 'conv', {}, { limit: 50, skip: 0 }, 'oldest-first');
    expect(listed.items.map((t) => [t.traceId, t.startTimeMs])).toEqual([['resent', T0]]);
    expect(await store.sessions.get(tenantId, 'conv')).toMatchObject({ traceCount: 1, firstSeenMs: T0 });
  });

  describe('a trace whose earlier span names another session', () => {
    const child = span('moving', 'child', 'root', { sessionId: 's-late', startTimeMs: T0 + 5000, endTimeMs: T0 + 6000 });
    const root = span('moving', 'root', null, { sessionId: 's-early', startTimeMs: T0, endTimeMs: T0 + 7000 });
    const storeSpans = (tenantId: string, ports: Store, spans: CanonicalSpan[]) =>
      ingestHandler(() => portsWith(ports))(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
    const tracesOf = async (tenantId: string, sessionId: string) =>
      (await store.sessions.tracesPage(tenantId, sessionId, {}, { limit: 50, skip: 0 }, 'oldest-first')).items.map((t) => t.traceId);
    /** The trace's summary as a worker read it before the root moved the trace. */
    async function beforeTheMove(tenantId: string) {
      await storeSpans(tenantId, store, [child]);
      return (await store.traces.summaries(tenantId, ['moving'])).get('moving')!;
    }

    /** Changes the trace's summary item as an earlier version of the service could have left it. */
    const updateSummaryItem = (tenantId: string, UpdateExpression: string, ExpressionAttributeValues: Record<string, unknown>) =>
      db.doc.send(new UpdateCommand({ TableName: db.tableName, Key: keys.traceSummary(tenantId, 'moving'), UpdateExpression, ExpressionAttributeValues }));
    /** The sessions of the moves the summary item still holds (each element of `movesLeft` is a move's id, a space, a session's id); undefined when it holds none. */
    const sessionsOfMovesLeft = async (tenantId: string) => {
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.traceSummary(tenantId, 'moving'), ConsistentRead: true }));
      const moves = Item?.['movesLeft'] as ReadonlySet<string> | undefined;
      return moves && [...moves].map((element) => element.slice(element.indexOf(' ') + 1));
    };

    it('moves it into that session and out of the one it was in, whose figures go on without it', async () => {
      const tenantId = await newTenant();
      const staying = span('staying', 'root', null, { sessionId: 's-late', startTimeMs: T0 + 9000, endTimeMs: T0 + 9500 });
      await storeSpans(tenantId, store, [child, staying]);
      expect(await store.sessions.get(tenantId, 's-late')).toMatchObject({ traceCount: 2, firstSeenMs: T0 + 5000 });

      expect((await storeSpans(tenantId, store, [root])).batchItemFailures).toEqual([]);
      expect(await tracesOf(tenantId, 's-early')).toEqual(['moving']);
      expect(await store.sessions.get(tenantId, 's-early')).toMatchObject({ traceCount: 1, firstSeenMs: T0 });
      expect(await tracesOf(tenantId, 's-late')).toEqual(['staying']);
      expect(await store.sessions.get(tenantId, 's-late')).toMatchObject({ traceCount: 1, firstSeenMs: T0 + 9000 });
    });

    it('takes it out of its session when its only span naming one is sent again naming none', async () => {
      const tenantId = await newTenant();
      await beforeTheMove(tenantId);
      expect((await storeSpans(tenantId, store, [{ ...child, sessionId: null }])).batchItemFailures).toEqual([]);

      expect((await store.traces.getSummary(tenantId, 'moving'))?.sessionId).toBeNull();
      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
      expect(await sessionsOfMovesLeft(tenantId)).toBeUndefined();
    });

    it('has left the old session when the worker crashes right after writing the summary that moves it', async () => {
      const tenantId = await newTenant();
      await beforeTheMove(tenantId);
      let crashes = 1;
      const crashing = aroundPutSummary(async (write) => {
        const put = await write();
        if (crashes-- > 0) throw new Error('Lambda timed out');
        return put;
      });
      expect((await storeSpans(tenantId, crashing, [root])).batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
      expect((await storeSpans(tenantId, store, [root])).batchItemFailures).toEqual([]);

      expect(await tracesOf(tenantId, 's-early')).toEqual(['moving']);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
    });

    it('takes out of the old session the copy a late worker wrote and checked just before the move', async () => {
      const tenantId = await newTenant();
      const { summary, revision, expiresAt } = await beforeTheMove(tenantId);
      let late = false;
      const racing = aroundPutSummary(async (write) => {
        late = true;
        await recordSessions(tenantId, [{ summary, revision }], expiresAt, sessionDeps(store));
        return write();
      });
      expect((await storeSpans(tenantId, racing, [root])).batchItemFailures).toEqual([]);

      expect(late).toBe(true);
      expect(await tracesOf(tenantId, 's-early')).toEqual(['moving']);
      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
    });

    /**
     * A mover whose batch fails after the summary that moves the trace, and before its last removal
     * from the old session; a late worker's copy was written there, and checked while the summary
     * still named that session, just before the move.
     */
    async function moverFailingBeforeItsLastRemoval(tenantId: string, moving = root) {
      const { summary, revision, expiresAt } = await beforeTheMove(tenantId);
      const failing = aroundPutSummary(async (write) => {
        await recordSessions(tenantId, [{ summary, revision }], expiresAt, sessionDeps(store));
        await write();
        throw new Error('ProvisionedThroughputExceededException');
      });
      expect((await storeSpans(tenantId, failing, [moving])).batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
      expect(await tracesOf(tenantId, 's-late')).toEqual(['moving']);
    }
    /** The old session no longer lists the trace, which is in the new one, and nothing is left to leave. */
    async function expectLeftForGood(tenantId: string) {
      expect(await tracesOf(tenantId, 's-early')).toEqual(['moving']);
      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
      expect(await sessionsOfMovesLeft(tenantId)).toBeUndefined();
    }

    const reindexAll = async (walker: Store) => {
      await store.reindex.saveProgress(LIST_LAYOUT, { done: false, items: 0 });
      for (let done = false; !done; )
        done = (await reindexStep({ store: walker, clock: { now: () => new Date() }, ids: randomIds, queue: noSends }, 60_000)).done;
    };

    it('takes the late copy out of the old session on the retry of a mover that failed before its last removal', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId);
      expect(await sessionsOfMovesLeft(tenantId)).toEqual(['s-late']);

      expect((await storeSpans(tenantId, store, [root])).batchItemFailures).toEqual([]);
      await expectLeftForGood(tenantId);
    });

    it('takes the late copy out of the old session when another span of the trace is stored after a mover failed before its last removal', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId);
      const another = span('moving', 'another', 'root', { startTimeMs: T0 + 6000, endTimeMs: T0 + 6500 });
      expect((await storeSpans(tenantId, store, [another])).batchItemFailures).toEqual([]);
      expect((await store.traces.getSummary(tenantId, 'moving'))?.spanCount).toBe(3);
      await expectLeftForGood(tenantId);
    });

    it('takes the late copy out of the old session when the trace is closed after a mover failed before its last removal', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId, { ...root, endTimeMs: null });
      const later = { now: () => new Date(Date.now() + TRACE_QUIET_MS + 60_000) };
      expect(await closeTraces({ kind: 'close-traces', tenantId, traceIds: ['moving'] }, { ...portsWith(store), clock: later })).toBe(1);
      await expectLeftForGood(tenantId);
    });

    it('takes the late copy out of the old session when the agent is purged after a mover failed before its last removal', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId);
      const [agent] = await store.agents.list(tenantId);
      await purgeAgent({ kind: 'purge-agent', tenantId, agentId: agent!.id }, portsWith(store));

      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
      expect(await store.sessions.get(tenantId, 's-early')).toBeUndefined();
    });

    it('takes the late copy out of the old session when the re-index walks the trace after a mover failed before its last removal', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId);
      await reindexAll(store);

      await expectLeftForGood(tenantId);
    });

    it('finishes a move its summary names the way it did before moves had ids (a session id in sessionsLeft)', async () => {
      const tenantId = await newTenant();
      await moverFailingBeforeItsLastRemoval(tenantId);
      await updateSummaryItem(tenantId, 'REMOVE movesLeft ADD sessionsLeft :left', { ':left': new Set(['s-late']) });
      expect((await store.traces.summaries(tenantId, ['moving'])).get('moving')?.movesLeft).toEqual([{ sessionId: 's-late', moveId: null }]);

      expect((await storeSpans(tenantId, store, [root])).batchItemFailures).toEqual([]);
      await expectLeftForGood(tenantId);
      const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.traceSummary(tenantId, 'moving'), ConsistentRead: true }));
      expect(Item).not.toHaveProperty('sessionsLeft');
    });

    it('drops the copy a late worker writes after the move, checking it against the moved summary', async () => {
      const tenantId = await newTenant();
      const { summary, revision, expiresAt } = await beforeTheMove(tenantId);
      await storeSpans(tenantId, store, [root]);
      await recordSessions(tenantId, [{ summary, revision }], expiresAt, sessionDeps(store));

      expect(await tracesOf(tenantId, 's-early')).toEqual(['moving']);
      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
    });

    it('keeps it in the session it moved back to before its first mover took it out of there once more', async () => {
      const tenantId = await newTenant();
      await beforeTheMove(tenantId);
      // An even earlier span, naming the first session again, is stored by another worker between the
      // first mover's refresh of its new session and its last removal from the old one.
      const earliest = span('moving', 'earliest', 'root', { sessionId: 's-late', startTimeMs: T0 - 1000, endTimeMs: T0 + 500 });
      let movedBack = false;
      const firstMover = withSessions({
        refresh: async (...args) => {
          const large = await store.sessions.refresh(...args);
          if (movedBack) return large;
          movedBack = true;
          expect((await storeSpans(tenantId, store, [earliest])).batchItemFailures).toEqual([]);
          return large;
        },
      });
      expect((await storeSpans(tenantId, firstMover, [root])).batchItemFailures).toEqual([]);

      expect(movedBack).toBe(true);
      expect((await store.traces.getSummary(tenantId, 'moving'))?.sessionId).toBe('s-late');
      expect(await tracesOf(tenantId, 's-late')).toEqual(['moving']);
      expect(await store.sessions.get(tenantId, 's-late')).toMatchObject({ traceCount: 1, firstSeenMs: T0 - 1000 });
      expect(await store.sessions.get(tenantId, 's-early')).toBeUndefined();
    });

    it('takes the late copy out on the retry of a second mover out of the same session, though the first mover finished its own move meanwhile', async () => {
      const tenantId = await newTenant();
      await beforeTheMove(tenantId);
      // While the first mover (the root: s-late → s-early) is between its last removal from s-late and
      // noting that removal done, the trace moves back to s-late, then out of it again to s-early by a
      // second mover, which fails before its own last removal; a late worker's copy was written in
      // s-late, and checked, between that mover's first removal and its summary.
      const backToLate = span('moving', 'earliest', 'root', { sessionId: 's-late', startTimeMs: T0 - 1000, endTimeMs: T0 + 500 });
      const outAgain = span('moving', 'even-earlier', 'root', { sessionId: 's-early', startTimeMs: T0 - 2000, endTimeMs: T0 + 400 });
      let secondMover: Awaited<ReturnType<typeof storeSpans>> | undefined;
      const firstMover: Store = {
        ...store,
        traces: {
          ...store.traces,
          forgetMove: async (...args) => {
            if (!secondMover) {
              expect((await storeSpans(tenantId, store, [backToLate])).batchItemFailures).toEqual([]);
              const { summary, revision, expiresAt } = (await store.traces.summaries(tenantId, ['moving'])).get('moving')!;
              const failing = aroundPutSummary(async (write) => {
                await recordSessions(tenantId, [{ summary, revision }], expiresAt, sessionDeps(store));
                await write();
                throw new Error('ProvisionedThroughputExceededException');
              });
              secondMover = await storeSpans(tenantId, failing, [outAgain]);
            }
            return store.traces.forgetMove(...args);
          },
        },
      };
      expect((await storeSpans(tenantId, firstMover, [root])).batchItemFailures).toEqual([]);
      expect(secondMover?.batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
      expect(await tracesOf(tenantId, 's-late')).toEqual(['moving']);

      expect((await storeSpans(tenantId, store, [outAgain])).batchItemFailures).toEqual([]);
      await expectLeftForGood(tenantId);
    });

    /** The trace as an earlier version could leave it: its summary, and its copy, in `s-old`, while its span names `s-late`. */
    async function summaryNamingAnotherSession(tenantId: string) {
      await beforeTheMove(tenantId);
      await updateSummaryItem(tenantId, 'SET sessionId = :s', { ':s': 's-old' });
      await store.sessions.removeTraces(tenantId, 's-late', ['moving']);
      const stale = (await store.traces.summaries(tenantId, ['moving'])).get('moving')!;
      await recordSessions(tenantId, [stale], stale.expiresAt, sessionDeps(store));
      expect(await tracesOf(tenantId, 's-old')).toEqual(['moving']);
    }
    const rootInOldSession = span('moving', 'root', null, { sessionId: 's-old', startTimeMs: T0, endTimeMs: T0 + 7000 });
    /** The earlier root keeps the trace in s-old: there, and there only. */
    async function expectKeptInOldSession(tenantId: string) {
      expect((await store.traces.getSummary(tenantId, 'moving'))?.sessionId).toBe('s-old');
      expect(await tracesOf(tenantId, 's-old')).toEqual(['moving']);
      expect(await tracesOf(tenantId, 's-late')).toEqual([]);
    }

    it('is moved by the re-index so that a worker that read its summary before reads it again', async () => {
      const tenantId = await newTenant();
      await summaryNamingAnotherSession(tenantId);
      // A worker storing an earlier root, which keeps the trace in s-old, has read the summary and
      // writes only once the re-index has moved the trace to s-late.
      let workerRead!: () => void;
      const workerHasRead = new Promise<void>((resolve) => (workerRead = resolve));
      let walked!: () => void;
      const walkDone = new Promise<void>((resolve) => (walked = resolve));
      const worker = aroundPutSummary(async (write) => {
        workerRead();
        await walkDone;
        return write();
      });
      let workerRun: ReturnType<typeof storeSpans> | undefined;
      const walker = aroundPutSummary(async (write) => {
        if (!workerRun) {
          workerRun = storeSpans(tenantId, worker, [rootInOldSession]);
          await workerHasRead;
        }
        return write();
      });
      await reindexAll(walker);
      walked();
      expect((await workerRun!).batchItemFailures).toEqual([]);

      await expectKeptInOldSession(tenantId);
    });

    it('stays in the session the re-index took it out of when a worker that keeps it there wrote first', async () => {
      const tenantId = await newTenant();
      await summaryNamingAnotherSession(tenantId);
      let workerWrote = false;
      const walker = withSessions({
        removeTraces: async (...args) => {
          if (args[0] === tenantId && !workerWrote) {
            workerWrote = true;
            expect((await storeSpans(tenantId, store, [rootInOldSession])).batchItemFailures).toEqual([]);
          }
          return store.sessions.removeTraces(...args);
        },
      });
      await reindexAll(walker);

      expect(workerWrote).toBe(true);
      await expectKeptInOldSession(tenantId);
    });

    it.each([
      ['before the purge marked it', 'markDeleting'],
      ['after the purge marked it', 'deleteTrace'],
    ] as const)('is taken out of the session it moved to while its agent was being purged, moved %s', async (_, step) => {
      const tenantId = await newTenant();
      await beforeTheMove(tenantId);
      const [agent] = await store.agents.list(tenantId);
      // The purge read the trace in its first session; a worker moves it before the purge's step.
      let moved: Awaited<ReturnType<typeof storeSpans>> | undefined;
      const racing = beforePurgeStep(step, async () => {
        moved ??= await storeSpans(tenantId, store, [root]);
      });
      await purgeAgent({ kind: 'purge-agent', tenantId, agentId: agent!.id }, portsWith(racing));
      expect(moved?.batchItemFailures).toEqual([]);

      expect(await store.traces.getSummary(tenantId, 'moving')).toBeUndefined();
      expect(await tracesOf(tenantId, 's-early')).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-early')).toBeUndefined();
      expect(await store.sessions.get(tenantId, 's-late')).toBeUndefined();
    });
  });

  it('counts the spans it stored and the alerts they opened (EMF metrics)', async () => {
    const tenantId = await newTenant();
    const added = vi.spyOn(metrics, 'addMetric');
    const spans = [
      span('counted', 'root', null, { agentName: 'Counted', status: 'error', errorType: 'ValueError' }),
      span('counted', 'child', 'root', { agentName: 'Counted' }),
    ];
    const handler = ingestHandler(() => portsWith(store));
    await handler(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
    expect(added.mock.calls).toEqual([
      ['SpansIngested', 'Count', 2],
      ['AlertsRaised', 'Count', 1],
    ]);
    added.mockClear();
    // A redelivery stores the spans again (idempotently) and opens no alert: the occurrence counts once.
    await handler(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
    expect(added.mock.calls).toEqual([['SpansIngested', 'Count', 2]]);
    added.mockRestore();
  });

  it('two workers meeting a new agent name at once create one agent', async () => {
    const tenantId = await newTenant();
    const messages = [1, 2, 3, 4].map(
      (i) => toIngestMessages(tenantId, T0, { spans: [span(`t${i}`, 'root', null, { agentName: 'Brand New' })], signals: [], logs: [] })[0],
    );
    const handler = ingestHandler(() => portsWith(store));
    await Promise.all(messages.map((m, i) => handler(sqsEvent([m], [`race-${i}`]), lambdaContext)));
    const agents = await store.agents.list(tenantId);
    expect(agents.map((a) => a.name)).toEqual(['Brand New']);
    const summaries = await allSummaries(db, tenantId);
    expect(new Set(summaries.map((s) => s.agentId))).toEqual(new Set([agents[0]!.id]));
  });

  it('reports one bad record without failing the rest of the batch', async () => {
    const tenantId = await newTenant();
    const good = toIngestMessages(tenantId, T0, { spans: [span('good', 'root', null)], signals: [], logs: [] })[0];
    const result = await ingestHandler(() => portsWith(store))(sqsEvent([good, { kind: 'nonsense' }], ['ok', 'poison']), lambdaContext);
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'poison' }]);
    expect(await store.traces.getSummary(tenantId, 'good')).toBeDefined();
  });

  describe('a session of more than LARGE_SESSION_TRACES traces', () => {
    type Sent = { message: unknown; delaySeconds: number | undefined };
    /** The ingest worker over `ports`, its sends recorded in `sent`, at `nowMs`. */
    const worker = (sent: Sent[], { ports = store, nowMs = Date.now() }: { ports?: Store; nowMs?: number } = {}) =>
      ingestHandler(() => ({
        ...portsWith(ports),
        clock: { now: () => new Date(nowMs) },
        queue: {
          send: async (queueId: string, messages: readonly unknown[], options?: { delaySeconds?: number }) => {
            if (queueId === 'ingest') sent.push(...messages.map((message) => ({ message, delaySeconds: options?.delaySeconds })));
          },
        },
      }));
    const turn = (i: number) =>
      span(`big-${i}`, `root-${i}`, null, { kind: 'agent', sessionId: 'big', startTimeMs: T0 + i * 1000, endTimeMs: T0 + i * 1000 + 500 });
    const turns = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => turn(from + i));
    const ingest = async (tenantId: string, spans: CanonicalSpan[], sent: Sent[], options?: Parameters<typeof worker>[1]) =>
      expect(
        (await worker(sent, options)(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext)).batchItemFailures,
      ).toEqual([]);
    const deliver = async (sent: Sent[]) => {
      const messages = sent.splice(0).map((s) => s.message);
      expect((await worker([])(sqsEvent(messages), lambdaContext)).batchItemFailures).toEqual([]);
    };
    /** A store whose first reads of a large session's partition are counted, items and calls. */
    const countingReads = () => {
      const reads = { items: 0 };
      const counted = {
        ...db,
        doc: {
          send: async (command: any) => {
            const answer: any = await db.doc.send(command);
            if (command instanceof QueryCommand && String(command.input.ExpressionAttributeValues?.[':pk']).includes('#SESSION#'))
              reads.items += answer.Items?.length ?? 0;
            return answer;
          },
        },
      } as unknown as Db;
      return { reads, ports: { ...store, sessions: sessionsRepository(counted) } };
    };

    it('is recounted in one read of its partition, and in two when a trace has a copy at an old start', async () => {
      const tenantId = await newTenant();
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), []);
      const { reads, ports } = countingReads();
      await ports.sessions.refreshQueued(tenantId, 'big', Date.now());
      // Its figures, its index entry and its traces.
      expect(reads.items).toBe(LARGE_SESSION_TRACES + 3);

      // A copy of the first turn left at a start it no longer has (a worker that failed before deleting it).
      const first = (await store.traces.summaries(tenantId, ['big-1'])).get('big-1')!;
      const stale = sessionTraceItem(tenantId, { ...first.summary, sessionId: 'big', startTimeMs: T0 + 500 }, first.revision - 1, first.expiresAt);
      await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...stale, writeId: 'stale' } }));
      reads.items = 0;
      await ports.sessions.refreshQueued(tenantId, 'big', Date.now());
      expect(reads.items).toBe(2 * (LARGE_SESSION_TRACES + 4));
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 1, firstSeenMs: T0 + 1000 });
      const listed = await store.sessions.tracesPage(tenantId, 'big', {}, { limit: 2, skip: 0 }, 'oldest-first');
      expect(listed.items.map((t) => [t.traceId, t.startTimeMs])).toEqual([
        ['big-1', T0 + 1000],
        ['big-2', T0 + 2000],
      ]);
    });

    it('has its figures recomputed once, by a refresh queued with a delay, for every trace stored meanwhile', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      expect(sent).toEqual([]);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 1 });

      const { reads, ports } = countingReads();
      await ingest(tenantId, [turn(200)], sent, { ports });
      await ingest(tenantId, [turn(201)], sent, { ports });
      // Each worker read the session's first page only, and only the first queued a refresh.
      expect(reads.items).toBeLessThanOrEqual(2 * 16);
      const delaySeconds = refreshDelaySeconds(LARGE_SESSION_TRACES + 1);
      expect(sent).toEqual([{ message: { kind: 'refresh-session', tenantId, sessionId: 'big', dueAtMs: expect.any(Number) }, delaySeconds }]);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 1 });
      // A reader is told when the traces it sees listed but not counted will be; not once the note is
      // so far past its due time that its refresh has run (a note written late) or gone to the dead letters.
      const readSession = async (nowMs = Date.now()) => (await getSession(store, tenantId, 'big', { limit: 1, skip: 0 }, nowMs)).data;
      const { dueAtMs } = sent[0]!.message as { dueAtMs: number };
      expect(await readSession()).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 1, figuresRefreshDueAt: new Date(dueAtMs).toISOString() });
      expect(await readSession(dueAtMs + REFRESH_OVERDUE_AFTER_MS)).toMatchObject({ figuresRefreshDueAt: new Date(dueAtMs).toISOString() });
      expect(await readSession(dueAtMs + REFRESH_OVERDUE_AFTER_MS + 1)).toMatchObject({ figuresRefreshDueAt: null });
      // Its lists' totals, the figures' count, say they may be short while the refresh is queued, however late.
      const totals = async () => {
        const page = { limit: 1, skip: 0 };
        const [view, list] = await Promise.all([
          getSession(store, tenantId, 'big', page, dueAtMs + REFRESH_OVERDUE_AFTER_MS + 1),
          listTraces(store, systemClock, tenantId, { sessionId: 'big' } as Parameters<typeof listTraces>[3], page),
        ]);
        return [view, list].map(({ total, totalExact }) => ({ total, totalExact }));
      };
      expect(await totals()).toEqual(Array(2).fill({ total: LARGE_SESSION_TRACES + 1, totalExact: false }));

      await deliver(sent);
      expect(await readSession()).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 3, figuresRefreshDueAt: null });
      expect(await totals()).toEqual(Array(2).fill({ total: LARGE_SESSION_TRACES + 3, totalExact: true }));
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({
        traceCount: LARGE_SESSION_TRACES + 3,
        firstSeenMs: T0 + 1000,
        lastSeenMs: T0 + 201_500,
      });
      // Its note gone with the refresh, the next trace queues the next one; this one is the session's
      // earliest, and the refresh lists the session by its start.
      await ingest(tenantId, [turn(0)], sent);
      expect(sent.map((s) => s.message)).toEqual([{ kind: 'refresh-session', tenantId, sessionId: 'big', dueAtMs: expect.any(Number) }]);
      await deliver(sent);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 4, firstSeenMs: T0 });
      const firstSecond = { limit: 50, skip: 0, startDate: new Date(T0), endDate: new Date(T0 + 999) };
      expect((await listSessions(store, tenantId, firstSecond, { limit: 50, skip: 0 })).items).toMatchObject([
        { sessionId: 'big', traceCount: LARGE_SESSION_TRACES + 4 },
      ]);
    });

    it('counts a trace stored while its queued refresh takes its note off', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      await ingest(tenantId, [turn(200)], sent);
      expect(sent).toHaveLength(1);
      // A worker stores a trace, finding the note still there, just before the refresh takes it off.
      let stepIn = true;
      const steppingIn = {
        ...db,
        doc: {
          send: async (command: any) => {
            if (stepIn && command instanceof DeleteCommand && command.input.Key?.['SK'] === keys.sessionRefreshNote(tenantId, 'big').SK) {
              stepIn = false;
              await ingest(tenantId, [turn(201)], sent);
            }
            return db.doc.send(command);
          },
        },
      } as unknown as Db;
      const [queued] = sent.splice(0);
      const refresher = { ...portsWith({ ...store, sessions: sessionsRepository(steppingIn) }), queue: noSends };
      expect((await ingestHandler(() => refresher)(sqsEvent([queued!.message]), lambdaContext)).batchItemFailures).toEqual([]);
      expect(stepIn).toBe(false);
      expect(sent).toEqual([]);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 3 });
    });

    it('is not kept from its next refresh by a note its worker wrote after the refresh it notes had run', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      // The worker is held up between its send and its note for as long as the refresh's delay.
      const lateNote = withSessions({
        noteRefreshQueued: async (...args) => {
          await deliver(sent);
          return store.sessions.noteRefreshQueued(...args);
        },
      });
      const startedMs = Date.now();
      await ingest(tenantId, [turn(200)], sent, { ports: lateNote, nowMs: startedMs });
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 2 });
      // Those who come after it (no sooner than the refresh it notes could run) queue the next.
      await ingest(tenantId, [turn(201)], sent, { nowMs: startedMs + refreshDelaySeconds(LARGE_SESSION_TRACES + 1) * 1000 });
      expect(sent.map((s) => s.message)).toEqual([{ kind: 'refresh-session', tenantId, sessionId: 'big', dueAtMs: expect.any(Number) }]);
      await deliver(sent);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 3 });
    });

    it('does not give every later refresh a twin when two workers queue one at once', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      const delayMs = refreshDelaySeconds(LARGE_SESSION_TRACES + 1) * 1000;
      const startMs = Date.now();
      // The first worker is held between its send and its note while a second finds no note either;
      // the first one's note, due earlier, does not replace the second's.
      const heldNote = withSessions({
        noteRefreshQueued: async (...args) => {
          await ingest(tenantId, [turn(201)], sent, { nowMs: startMs + 2000 });
          return store.sessions.noteRefreshQueued(...args);
        },
      });
      await ingest(tenantId, [turn(200)], sent, { ports: heldNote, nowMs: startMs });
      const [earlier, later] = sent.splice(0).map((s) => s.message as { dueAtMs: number });
      expect([earlier!.dueAtMs, later!.dueAtMs]).toEqual([startMs + delayMs, startMs + 2000 + delayMs]);
      // The earlier refresh runs, and leaves the later one's note: a worker before that one is due queues none.
      await deliver([{ message: earlier, delaySeconds: undefined }]);
      await ingest(tenantId, [turn(202)], sent, { nowMs: startMs + delayMs });
      expect(sent).toEqual([]);
      await deliver([{ message: later, delaySeconds: undefined }]);
      await ingest(tenantId, [turn(203)], sent, { nowMs: startMs + 2000 + delayMs });
      expect(sent).toHaveLength(1);
      await deliver(sent);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 5 });
    });

    it('keeps the copy of a trace whose start moved back meanwhile, when a worker deletes the copy at the start it replaced', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      const startMs = Date.now();
      const first = T0 + 500_000;
      await ingest(tenantId, [span('back', 'a', null, { sessionId: 'big', startTimeMs: first, endTimeMs: first + 100 })], sent, { nowMs: startMs });
      // A worker moves the start earlier and is held before its session copies, while the span that
      // moved it is sent again, later (a producer's retry with other times), moving it back.
      const movedBack = span('back', 'b', null, { sessionId: 'big', startTimeMs: first + 50, endTimeMs: first + 60 });
      const heldCopies = withSessions({
        putTraces: async (...args) => {
          await ingest(tenantId, [movedBack], sent, { nowMs: startMs + 2000 });
          return store.sessions.putTraces(...args);
        },
      });
      const earlier = span('back', 'b', null, { sessionId: 'big', startTimeMs: first - 100_000, endTimeMs: first - 99_000 });
      await ingest(tenantId, [earlier], sent, { ports: heldCopies, nowMs: startMs + 1000 });
      expect((await store.traces.getSummary(tenantId, 'back'))?.startTimeMs).toBe(first);
      const page = await store.sessions.tracesPage(tenantId, 'big', { startMs: first - 200_000 }, { limit: 50, skip: 0 }, 'oldest-first');
      expect(page.items.map((t) => t.startTimeMs)).toContain(first);
    });

    it('queues the refresh again on the retry of a worker that failed to note it, and again once the noted one is due', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      let failNote = true;
      const failingNote = withSessions({
        noteRefreshQueued: async (...args) => {
          if (failNote) {
            failNote = false;
            throw new Error('the note was not written');
          }
          return store.sessions.noteRefreshQueued(...args);
        },
      });
      const message = toIngestMessages(tenantId, T0, { spans: [turn(200)], signals: [], logs: [] });
      expect((await worker(sent, { ports: failingNote })(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
      expect((await worker(sent, { ports: failingNote })(sqsEvent(message), lambdaContext)).batchItemFailures).toEqual([]);
      expect(sent).toHaveLength(2);
      // Noted now: a trace stored before it is due queues none, one stored once it is due queues another.
      await ingest(tenantId, [turn(201)], sent);
      expect(sent).toHaveLength(2);
      await ingest(tenantId, [turn(202)], sent, { nowMs: Date.now() + refreshDelaySeconds(LARGE_SESSION_TRACES + 1) * 1000 });
      expect(sent).toHaveLength(3);
      await deliver(sent);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES + 4 });
    });

    it('lists a trace once as soon as its start moves earlier, before its refresh', async () => {
      const tenantId = await newTenant();
      const sent: Sent[] = [];
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), sent);
      // A child ends, and is exported, before its root, which started earlier.
      await ingest(tenantId, [span('moved', 'child', 'root', { sessionId: 'big', startTimeMs: T0 + 500_000, endTimeMs: T0 + 500_100 })], sent);
      await ingest(tenantId, [span('moved', 'root', null, { kind: 'agent', sessionId: 'big', startTimeMs: T0 + 499_000, endTimeMs: T0 + 501_000 })], sent);
      const page = await store.sessions.tracesPage(tenantId, 'big', { startMs: T0 + 400_000 }, { limit: 50, skip: 0 }, 'oldest-first');
      expect(page.items.map((t) => [t.traceId, t.startTimeMs])).toEqual([['moved', T0 + 499_000]]);
      expect(sent).toHaveLength(1);
    });

    it('is read once a purge page when its agent is deleted, not once a trace', async () => {
      const tenantId = await newTenant();
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), []);
      const [agent] = await store.agents.list(tenantId);
      const { reads, ports } = countingReads();
      let next: Awaited<ReturnType<typeof purgeAgent>> = { message: { kind: 'purge-agent', tenantId, agentId: agent!.id }, delayed: false };
      while (next) next = await purgeAgent(next.message, portsWith(ports));

      expect(await store.sessions.get(tenantId, 'big')).toBeUndefined();
      expect((await store.sessions.tracesPage(tenantId, 'big', {}, { limit: 50, skip: 0 }, 'oldest-first')).items).toEqual([]);
      // Two pages of traces, each taken out of the session with one read of it (one trace at a time read it 101 times).
      expect(reads.items).toBeLessThanOrEqual(2 * (LARGE_SESSION_TRACES + 3));
    });

    it('has a trace taken out of it at once, by a whole read', async () => {
      const tenantId = await newTenant();
      await ingest(tenantId, turns(1, LARGE_SESSION_TRACES + 1), []);
      await store.sessions.removeTraces(tenantId, 'big', ['big-1']);
      expect(await store.sessions.get(tenantId, 'big')).toMatchObject({ traceCount: LARGE_SESSION_TRACES, firstSeenMs: T0 + 2000 });
    });
  });

  describe('a batch of messages', () => {
    /** The store, counting the calls of some trace methods and letting a test step in before them. */
    function watchedStore(before: Partial<Record<'summaries' | 'putSummary' | 'putSpansOfMessages', (...args: any[]) => Promise<void>>> = {}) {
      const calls = { summaries: 0, putSummary: 0, putSpansOfMessages: 0 };
      const watched = <K extends keyof typeof calls>(name: K) =>
        (async (...args: any[]) => {
          calls[name]++;
          await before[name]?.(...args);
          return (store.traces[name] as (...a: any[]) => Promise<unknown>)(...args);
        }) as Store['traces'][K];
      const traces = { ...store.traces, summaries: watched('summaries'), putSummary: watched('putSummary'), putSpansOfMessages: watched('putSpansOfMessages') };
      return { store: { ...store, traces } as Store, calls };
    }
    const traceOf = (traceId: string, agentName = 'batched-agent') => [
      span(traceId, 'root', null, { kind: 'agent', agentName }),
      span(traceId, 'child', 'root', { agentName }),
    ];
    const messagesOf = (tenantId: string, traces: CanonicalSpan[][]) =>
      traces.map((spans) => toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })[0]);

    it('reads and writes for all its traces together, and a redelivery writes no summary again', async () => {
      const tenantId = await newTenant();
      const messages = messagesOf(
        tenantId,
        Array.from({ length: 10 }, (_, m) => Array.from({ length: 5 }, (_, t) => traceOf(`b${m}-${t}`)).flat()),
      );
      const { store: watching, calls } = watchedStore();
      const handler = ingestHandler(() => portsWith(watching));
      expect((await handler(sqsEvent(messages), lambdaContext)).batchItemFailures).toEqual([]);
      expect(calls).toEqual({ summaries: 1, putSpansOfMessages: 1, putSummary: 50 });
      const summaries = await allSummaries(db, tenantId);
      expect(summaries).toHaveLength(50);
      expect(summaries.every((s) => s.spanCount === 2 && s.complete)).toBe(true);

      expect((await handler(sqsEvent(messages), lambdaContext)).batchItemFailures).toEqual([]);
      expect(calls).toEqual({ summaries: 2, putSpansOfMessages: 2, putSummary: 50 });
    });

    it('fails only the message that fails alone', async () => {
      const tenantId = await newTenant();
      const messages = messagesOf(tenantId, [traceOf('fine-1'), traceOf('poisoned'), traceOf('fine-2')]);
      const { store: failing } = watchedStore({
        putSpansOfMessages: async (_tenant: string, arrivals: Array<{ spans: CanonicalSpan[] }>) => {
          if (arrivals.some((a) => a.spans.some((s) => s.traceId === 'poisoned'))) throw new Error('item too large');
        },
      });
      const result = await ingestHandler(() => portsWith(failing))(sqsEvent(messages, ['fine-1', 'poisoned', 'fine-2']), lambdaContext);
      expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'poisoned' }]);
      expect(await store.traces.getSummary(tenantId, 'fine-1')).toMatchObject({ spanCount: 2 });
      expect(await store.traces.getSummary(tenantId, 'fine-2')).toMatchObject({ spanCount: 2 });
      expect(await store.traces.getSummary(tenantId, 'poisoned')).toBeUndefined();
    });

    it('of two workers adding spans to the same traces at once, the one that read an older summary reads again: every span counts', async () => {
      const tenantId = await newTenant();
      const traceIds = ['shared-1', 'shared-2', 'shared-3'];
      const roots = messagesOf(tenantId, [traceIds.flatMap((id) => [span(id, 'root', null, { kind: 'agent', endTimeMs: T0 + 5000 })])]);
      const children = messagesOf(tenantId, [traceIds.flatMap((id) => [span(id, 'a', 'root'), span(id, 'b', 'root')])]);
      // Both workers read the summaries (none yet) before either writes one.
      const writers = new Set<number>();
      let release!: () => void;
      const bothRead = new Promise<void>((resolve) => (release = resolve));
      const { store: racing, calls } = watchedStore({
        putSummary: async (_tenant: string, summary: { spanCount: number }) => {
          writers.add(summary.spanCount); // 1: the roots' worker, 2: the children's
          if (writers.has(1) && writers.has(2)) release();
          await bothRead;
        },
      });
      const handler = ingestHandler(() => portsWith(racing));
      const results = await Promise.all([handler(sqsEvent(roots, ['roots']), lambdaContext), handler(sqsEvent(children, ['children']), lambdaContext)]);
      expect(results.map((r) => r.batchItemFailures)).toEqual([[], []]);
      expect(calls.summaries).toBeGreaterThan(2);
      for (const traceId of traceIds) {
        expect(await store.traces.getSummary(tenantId, traceId)).toMatchObject({ spanCount: 3, rootSpanId: 'root', complete: true });
      }
    });
  });

  describe('deleting an agent', () => {
    async function agentWithTrace(traceId: string) {
      const tenantId = await newTenant();
      await ingestHandler(() => portsWith(store))(
        sqsEvent(toIngestMessages(tenantId, T0, { spans: [span(traceId, 'root', null, { agentName: 'Doomed' })], signals: [], logs: [] })),
        lambdaContext,
      );
      const [agent] = await store.agents.list(tenantId);
      return { tenantId, agentId: agent!.id };
    }
    /** What the purge asked the lake worker to do. */
    const lakeMessages: unknown[] = [];
    /** Runs the queued purge messages to the end; answers the delays they were sent with. */
    const purgeAll = async (queued: unknown[], beforeEach: (message: unknown) => Promise<void> = async () => {}) => {
      const delays: number[] = [];
      const queue = {
        send: async (queueId: string, more: readonly unknown[], options?: { delaySeconds?: number }) => {
          if (queueId === 'lake') return void lakeMessages.push(...more);
          delays.push(options?.delaySeconds ?? 0);
          queued.push(...more);
        },
      };
      for (let message = queued.shift(); message; message = queued.shift()) {
        await beforeEach(message);
        await ingestHandler(() => ({ ...portsWith(store), queue }) as unknown as IngestPorts)(sqsEvent([message]), lambdaContext);
      }
      return delays;
    };

    it('with the queue down answers 503 and deletes nothing, so a retry starts over', async () => {
      const { tenantId, agentId } = await agentWithTrace('kept');
      const queue = {
        send: async () => {
          throw new Error('SQS unavailable');
        },
      };
      await expect(deleteAgent(tenantId, agentId, { store, clock: systemClock, queue })).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(await store.agents.get(tenantId, agentId)).toBeDefined();
      expect(await store.traces.getSummary(tenantId, 'kept')).toBeDefined();
    });

    it('failing after queuing the purge still ends with the agent and all its data gone', async () => {
      const { tenantId, agentId } = await agentWithTrace('orphan-candidate');
      const queued: unknown[] = [];
      const failingDelete: Store = {
        ...store,
        agents: {
          ...store.agents,
          delete: async () => {
            throw new Error('Lambda timed out');
          },
        },
      };
      await expect(
        deleteAgent(tenantId, agentId, { store: failingDelete, clock: systemClock, queue: { send: async (_, more) => void queued.push(...more) } }),
      ).rejects.toThrow('Lambda timed out');
      expect(queued).toEqual([{ kind: 'purge-agent', tenantId, agentId }]);
      await purgeAll(queued);
      expect(await store.agents.get(tenantId, agentId)).toBeUndefined();
      expect(await store.traces.getSummary(tenantId, 'orphan-candidate')).toBeUndefined();
      expect(await store.traces.spansOf(tenantId, 'orphan-candidate')).toEqual([]);
    });

    it('sweeps once more after a delay, for a trace an in-flight worker wrote under the agent after the purge', async () => {
      const { tenantId, agentId } = await agentWithTrace('first');
      const queued: unknown[] = [];
      await deleteAgent(tenantId, agentId, { store, clock: systemClock, queue: { send: async (_, more) => void queued.push(...more) } });
      // A worker that resolved the agent before the delete writes its trace while the purge runs.
      const lateWriter: Store = { ...store, agents: { ...store.agents, ensure: async () => agentId } };
      const late = toIngestMessages(tenantId, T0, { spans: [span('late', 'root', null, { agentName: 'Doomed' })], signals: [], logs: [] });
      const delays = await purgeAll(queued, async (message) => {
        if ((message as { finalSweep?: boolean }).finalSweep) await ingestHandler(() => portsWith(lateWriter))(sqsEvent(late), lambdaContext);
      });
      expect(delays).toEqual([config.purgeSweepDelaySeconds]);
      expect(config.purgeSweepDelaySeconds).toBeGreaterThan(catalog.queues.find((q) => q.id === 'ingest')!.visibilityTimeoutSeconds);
      expect(await store.traces.getSummary(tenantId, 'first')).toBeUndefined();
      expect(await store.traces.getSummary(tenantId, 'late')).toBeUndefined();
      // Once the table holds nothing of the agent, after the final sweep, the lake forgets it too.
      expect(lakeMessages).toContainEqual({ kind: 'forget-agent', tenantId, agentId });
    });

    /** A trace of the agent Doomed in session s-doomed: the agent, and the trace's summary as a worker read it before the purge. */
    async function doomedTraceInSession(tenantId: string) {
      const spans = [span('in-session', 'root', null, { agentName: 'Doomed', sessionId: 's-doomed' })];
      await ingestHandler(() => portsWith(store))(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
      const [agent] = await store.agents.list(tenantId);
      return { agent: agent!, ...(await store.traces.summaries(tenantId, ['in-session'])).get('in-session')! };
    }
    async function expectPurgedFromSession(tenantId: string) {
      expect(await store.traces.getSummary(tenantId, 'in-session')).toBeUndefined();
      expect((await store.sessions.tracesPage(tenantId, 's-doomed', {}, { limit: 50, skip: 0 }, 'oldest-first')).items).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-doomed')).toBeUndefined();
    }

    it('takes out of its session the copy a late worker wrote while the purge deleted its trace', async () => {
      const tenantId = await newTenant();
      const { agent, summary, revision, expiresAt } = await doomedTraceInSession(tenantId);
      expect(await store.sessions.get(tenantId, 's-doomed')).toMatchObject({ traceCount: 1 });
      // A worker that stored the trace before the purge writes and checks its session copy after the
      // purge removed the copy and before it deletes the summary.
      const racing = beforePurgeStep('deleteTrace', (t) => recordSessions(t, [{ summary, revision }], expiresAt, sessionDeps(store)));
      await purgeAgent({ kind: 'purge-agent', tenantId, agentId: agent.id }, portsWith(racing));

      await expectPurgedFromSession(tenantId);
    });

    it('starts over on the trace when the purge stops after marking its summary, before taking it out of its session', async () => {
      const tenantId = await newTenant();
      const { agent } = await doomedTraceInSession(tenantId);
      let stops = 1;
      const stopping = withSessions({
        removeTraces: async (...args) => {
          if (stops-- > 0) throw new Error('Lambda timed out');
          return store.sessions.removeTraces(...args);
        },
      });
      const purge = { kind: 'purge-agent', tenantId, agentId: agent.id } as const;
      await expect(purgeAgent(purge, portsWith(stopping))).rejects.toThrow('Lambda timed out');
      expect(await store.traces.getSummary(tenantId, 'in-session')).toBeDefined();
      expect(await store.sessions.get(tenantId, 's-doomed')).toMatchObject({ traceCount: 1 });

      await purgeAgent(purge, portsWith(store));
      await expectPurgedFromSession(tenantId);
    });

    it('takes a page of traces out of each of their sessions, and starts over when it stops between two sessions', async () => {
      const tenantId = await newTenant();
      const spans = ['s-1', 's-1', 's-2'].map((sessionId, i) => span(`doomed-${i}`, 'root', null, { agentName: 'Doomed', sessionId }));
      await ingestHandler(() => portsWith(store))(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
      const [agent] = await store.agents.list(tenantId);
      const removals: string[][] = [];
      const stopping = withSessions({
        removeTraces: async (t, sessionId, traceIds) => {
          removals.push([sessionId, ...traceIds]);
          if (removals.length === 2) throw new Error('Lambda timed out');
          return store.sessions.removeTraces(t, sessionId, traceIds);
        },
      });
      const purge = { kind: 'purge-agent', tenantId, agentId: agent!.id } as const;
      await expect(purgeAgent(purge, portsWith(stopping))).rejects.toThrow('Lambda timed out');
      expect(removals.map(([sessionId, ...traceIds]) => [sessionId, traceIds.sort()]).sort()).toEqual([
        ['s-1', ['doomed-0', 'doomed-1']],
        ['s-2', ['doomed-2']],
      ]);
      expect(await allSummaries(db, tenantId)).toHaveLength(3);

      await purgeAgent(purge, portsWith(store));
      expect(await allSummaries(db, tenantId)).toEqual([]);
      for (const sessionId of ['s-1', 's-2']) {
        expect(await store.sessions.get(tenantId, sessionId)).toBeUndefined();
        expect((await store.sessions.tracesPage(tenantId, sessionId, {}, { limit: 50, skip: 0 }, 'oldest-first')).items).toEqual([]);
      }
    });

    it('leaves no late copy in its session when the purge stops right after deleting the summary', async () => {
      const tenantId = await newTenant();
      const { agent, summary, revision, expiresAt } = await doomedTraceInSession(tenantId);
      // A worker that stored the trace before the purge writes and checks its session copy just before
      // the purge deletes the summary; the purge stops right after that delete, and SQS runs it again.
      let stops = 1;
      const stopping: Store = {
        ...store,
        traces: {
          ...store.traces,
          deleteTrace: async (t, traceId) => {
            await recordSessions(t, [{ summary, revision }], expiresAt, sessionDeps(store));
            const deleted = await store.traces.deleteTrace(t, traceId);
            if (stops-- > 0) throw new Error('Lambda timed out');
            return deleted;
          },
        },
      };
      const purge = { kind: 'purge-agent', tenantId, agentId: agent.id } as const;
      await expect(purgeAgent(purge, portsWith(stopping))).rejects.toThrow('Lambda timed out');
      await purgeAgent(purge, portsWith(store));

      await expectPurgedFromSession(tenantId);
    });

    it('takes out of its session a late copy made before the start of its trace moved earlier', async () => {
      const tenantId = await newTenant();
      const store1 = (spans: CanonicalSpan[]) =>
        ingestHandler(() => portsWith(store))(sqsEvent(toIngestMessages(tenantId, T0, { spans, signals: [], logs: [] })), lambdaContext);
      const doomed = { agentName: 'Doomed', sessionId: 's-doomed' };
      await store1([span('moved', 'child', 'root', { ...doomed, startTimeMs: T0 + 5000, endTimeMs: T0 + 6000 })]);
      const childOnly = (await store.traces.summaries(tenantId, ['moved'])).get('moved')!;
      await store1([span('moved', 'root', null, { ...doomed, startTimeMs: T0, endTimeMs: T0 + 7000 })]);
      const [agent] = await store.agents.list(tenantId);
      // A worker that read the trace before its root arrived writes and checks its copy (under the
      // child's start) after the purge removed the trace's copy and before it deletes the summary.
      const racing = beforePurgeStep('deleteTrace', (t) =>
        recordSessions(t, [{ summary: childOnly.summary, revision: childOnly.revision }], childOnly.expiresAt, sessionDeps(store)),
      );
      await purgeAgent({ kind: 'purge-agent', tenantId, agentId: agent!.id }, portsWith(racing));

      expect((await store.sessions.tracesPage(tenantId, 's-doomed', {}, { limit: 50, skip: 0 }, 'oldest-first')).items).toEqual([]);
      expect(await store.sessions.get(tenantId, 's-doomed')).toBeUndefined();
    });

    it('never brings the agent back when a worker meets its name while it is being deleted', async () => {
      const { tenantId, agentId } = await agentWithTrace('named');
      let interleaved = false;
      const racingDb: Db = {
        ...db,
        doc: {
          send: async (command: Parameters<Db['doc']['send']>[0]) => {
            const result = await db.doc.send(command);
            if (!interleaved && command instanceof DeleteCommand) {
              interleaved = true;
              await store.agents.ensure({ ...(await store.agents.get(tenantId, agentId))!, id: 'agt_newcomer' });
            }
            return result;
          },
        } as unknown as Db['doc'],
      };
      await agentsRepository(racingDb).delete(tenantId, agentId);
      expect(interleaved).toBe(true);
      expect((await store.agents.list(tenantId)).map((a) => a.id)).toEqual(['agt_newcomer']);
    });

    it('deletes the agent at once and its data with the purge, which may run twice', async () => {
      const { tenantId, agentId } = await agentWithTrace('purged');
      const queued: unknown[] = [];
      expect(await deleteAgent(tenantId, agentId, { store, clock: systemClock, queue: { send: async (_, more) => void queued.push(...more) } })).toEqual({
        id: agentId,
        deleted: true,
      });
      expect(await store.agents.get(tenantId, agentId)).toBeUndefined();
      await purgeAll([...queued, ...queued]);
      expect(await store.traces.getSummary(tenantId, 'purged')).toBeUndefined();
      await expect(deleteAgent(tenantId, agentId, { store, clock: systemClock, queue: { send: async () => {} } })).rejects.toBeInstanceOf(NotFoundError);
    });
  });
});

describe('DynamoDB throttling (client mock)', () => {
  let ddb: AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>;
  beforeEach(() => {
    ddb = mockClient(DynamoDBDocumentClient);
  });
  afterEach(() => ddb.restore());
  const mockedDb: Db = createDb('throttled');

  it('retries exactly the items DynamoDB left unprocessed until all are written', async () => {
    const items = Array.from({ length: 3 }, (_, i) => ({ PK: `p${i}`, SK: 's' }));
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { throttled: putRequests(items.slice(1)) as never } })
      .resolvesOnce({ UnprocessedItems: { throttled: putRequests(items.slice(2)) as never } })
      .resolves({});
    await batchWrite(mockedDb, putRequests(items));
    const calls = ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!['throttled']!.length);
    expect(calls).toEqual([3, 2, 1]);
  });

  it('reads again exactly the keys DynamoDB left unprocessed', async () => {
    const keys = Array.from({ length: 3 }, (_, i) => ({ PK: `p${i}`, SK: 's' }));
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { throttled: [keys[0]!] }, UnprocessedKeys: { throttled: { Keys: keys.slice(1) } } })
      .resolves({ Responses: { throttled: keys.slice(1) } });
    expect(await batchGet(mockedDb, keys, true)).toEqual(keys);
    const calls = ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems!['throttled']!);
    expect(calls.map((c) => [c.Keys!.length, c.ConsistentRead])).toEqual([
      [3, true],
      [2, true],
    ]);
  });

  it('gives up loudly, never silently, when throttling does not end', async () => {
    const items = [{ PK: 'p', SK: 's' }];
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: { throttled: putRequests(items) as never } });
    await expect(batchWrite(mockedDb, putRequests(items))).rejects.toThrow(/unprocessed/);
  });

  it('a throttled write fails the record so SQS retries it', async () => {
    ddb.onAnyCommand().resolves({});
    ddb.on(PutCommand).rejects(Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }));
    const throttledStore = createStore(mockedDb);
    const tenant = { id: 't', ownerUserId: 'u', subscription: newTrialSubscription(new Date()), createdAt: '' };
    const ports = {
      store: { ...throttledStore, tenants: { ...throttledStore.tenants, get: async () => tenant } },
      clock: { now: () => new Date() },
      ids: randomIds,
      metricsSink: noMetricsSink,
    } as unknown as IngestPorts;
    const message = toIngestMessages('t', T0, { spans: [span('x', 'root', null)], signals: [], logs: [] })[0];
    expect((await ingestHandler(() => ports)(sqsEvent([message]), lambdaContext)).batchItemFailures).toEqual([{ itemIdentifier: 'm0' }]);
  });
});

describe('a poison message on the real queue', () => {
  const fastCatalog = { ...catalog, queues: catalog.queues.map((q) => ({ ...q, visibilityTimeoutSeconds: 1 })) };
  let service: Awaited<ReturnType<typeof startTestService>>;
  beforeAll(async () => {
    service = await startTestService({ catalog: fastCatalog });
  });
  afterAll(() => service?.stop());

  it('ends in the dead-letter queue after five receives, while good messages go through', async () => {
    const sqs = new SQSClient({});
    const queueUrl = process.env[queueUrlEnv('ingest')]!;
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'this is not JSON' }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
    const policy = JSON.parse(Attributes!.RedrivePolicy!);
    expect(policy.maxReceiveCount).toBe(5);
    const { QueueUrl: dlqUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: policy.deadLetterTargetArn.split(':').pop() }));
    const deadline = Date.now() + 20_000;
    let dead: string[] = [];
    while (dead.length === 0 && Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      dead = Messages.map((m) => m.Body!);
    }
    expect(dead).toEqual(['this is not JSON']);
  }, 30_000);
});
