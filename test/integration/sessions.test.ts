import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '#shared/domain/errors.ts';
import { recordSessions } from '#shared/domain/sessions/ingest.ts';
import { getSession, listSessions } from '#shared/domain/sessions/queries.ts';
import { LARGE_SESSION_TRACES } from '#shared/domain/sessions/sessions.ts';
import { type StoredSpan, summarizeTrace, type TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Store } from '#shared/domain/store.ts';
import type { Db } from '#shared/store/client.ts';
import * as keys from '#shared/store/keys.ts';
import { sessionsRepository, sessionTraceItem } from '#shared/store/sessions.ts';
import { llm, spansOf, tool } from '../fixtures/judge/build.ts';
import { agentRecord } from '../support/agents.ts';
import { startStore } from '../support/dynamo.ts';
import { sessionDeps } from '../support/store.ts';

let store: Store;
let db: Db;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ store, db, stop } = await startStore('aos-sessions'));
});
afterAll(() => stop());

const EXPIRES = 2_000_000_000;
const T0 = Date.UTC(2026, 3, 1, 9);
const FIRST = { limit: 50, skip: 0 };
let n = 0;
const tenant = () => `tnt_sessions_${++n}`;

/** A trace of a conversation turn: its spans (stored, for inputs and outputs) and its summary. */
async function turn(tenantId: string, traceId: string, sessionId: string, startMs: number, over: Partial<TraceSummary> = {}, userId: string | null = 'user-1') {
  const spans: StoredSpan[] = spansOf(
    traceId,
    { input: `question ${traceId}`, steps: [tool('search', { q: traceId }, 'found'), llm(`answer ${traceId}`)], output: `answer ${traceId}` },
    startMs,
  ).map((s) => ({ ...s, sessionId, userId }));
  await store.traces.putSpans(tenantId, spans, EXPIRES, 1000);
  const summary = { ...summarizeTrace(spans), ...over };
  await store.traces.putSummary(tenantId, summary, 1000, EXPIRES);
  return { summary, revision: 1000 };
}

describe('sessions', () => {
  it('sum up their traces whatever order they arrive in and however often, listed by first seen', async () => {
    const t = tenant();
    const at = new Date(T0).toISOString();
    await store.agents.create(agentRecord(t, 'agt_fixture', at, { name: 'fixture-bot' }));
    const a = await turn(t, 'tr-1', 's-1', T0);
    const b = await turn(t, 'tr-2', 's-1', T0 + 60_000, { status: 'error', cost: 0.25, inputTokens: 100, outputTokens: 10, totalTokens: 110 });
    const c = await turn(t, 'tr-3', 's-2', T0 + 30_000, {}, 'user-2');
    await recordSessions(t, [b], EXPIRES, sessionDeps(store));
    await recordSessions(t, [a, c], EXPIRES, sessionDeps(store));
    await recordSessions(t, [a, b], EXPIRES, sessionDeps(store));
    await Promise.all([recordSessions(t, [a], EXPIRES, sessionDeps(store)), recordSessions(t, [b], EXPIRES, sessionDeps(store))]);

    const s1 = await store.sessions.get(t, 's-1');
    expect(s1).toMatchObject({
      sessionId: 's-1',
      agentId: 'agt_fixture',
      userId: 'user-1',
      firstSeenMs: T0,
      traceCount: 2,
      errorCount: 1,
      cost: 0.25,
      inputTokens: 100,
      outputTokens: 10,
      totalTokens: 110,
      lastSeenMs: b.summary.endTimeMs,
      durationMs: b.summary.endTimeMs! - T0,
    });
    const listed = await listSessions(store, t, { limit: 50, skip: 0 }, FIRST);
    expect(listed.items.map((s) => s.sessionId)).toEqual(['s-2', 's-1']);
    expect(listed).toMatchObject({ total: 2, totalExact: true, hasMore: false });
    expect((await listSessions(store, t, { limit: 50, skip: 0, userId: 'user-2' }, FIRST)).items.map((s) => s.sessionId)).toEqual(['s-2']);
    expect(
      (await listSessions(store, t, { limit: 50, skip: 0, agentId: 'agt_fixture', startDate: new Date(T0 + 1) }, FIRST)).items.map((s) => s.sessionId),
    ).toEqual(['s-2']);
  });

  it('show their traces in the order they started, each with what it was asked and answered', async () => {
    const t = tenant();
    const turns = [await turn(t, 'tr-b', 's', T0 + 5_000), await turn(t, 'tr-a', 's', T0), await turn(t, 'tr-c', 's', T0 + 9_000)];
    await recordSessions(t, turns, EXPIRES, sessionDeps(store));
    const first = await getSession(store, t, 's', { limit: 2, skip: 0 }, Date.now());
    expect(first.data.traces.map((tr) => [tr.traceId, tr.input, tr.output])).toEqual([
      ['tr-a', 'question tr-a', 'answer tr-a'],
      ['tr-b', 'question tr-b', 'answer tr-b'],
    ]);
    expect(first).toMatchObject({ total: 3, totalExact: true, hasMore: true });
    const second = await getSession(store, t, 's', { limit: 2, skip: 0, after: first.next! }, Date.now());
    expect(second.data.traces.map((tr) => tr.traceId)).toEqual(['tr-c']);
    await expect(getSession(store, 'tnt_other', 's', FIRST, Date.now())).rejects.toThrow(NotFoundError);
  });

  it('follow a trace whose start moves earlier, and lose a deleted trace (the session goes with its last one)', async () => {
    const t = tenant();
    const late = await turn(t, 'tr-x', 's', T0 + 10_000);
    const other = await turn(t, 'tr-y', 's', T0 + 20_000);
    await recordSessions(t, [late, other], EXPIRES, sessionDeps(store));
    const earlier = { summary: { ...late.summary, startTimeMs: T0 }, revision: 2000 };
    await store.traces.putSummary(t, earlier.summary, earlier.revision, EXPIRES);
    await recordSessions(t, [earlier], EXPIRES, sessionDeps(store));
    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items.map((i) => [i.traceId, i.startTimeMs])).toEqual([
      ['tr-x', T0],
      ['tr-y', T0 + 20_000],
    ]);
    expect(await store.sessions.get(t, 's')).toMatchObject({ firstSeenMs: T0, traceCount: 2 });

    await store.sessions.removeTraces(t, 's', ['tr-x']);
    expect(await store.sessions.get(t, 's')).toMatchObject({ firstSeenMs: T0 + 20_000, traceCount: 1 });
    expect((await listSessions(store, t, { limit: 50, skip: 0 }, FIRST)).items.map((s) => s.firstSeenAt)).toEqual([new Date(T0 + 20_000).toISOString()]);
    await store.sessions.removeTraces(t, 's', ['tr-y']);
    expect(await store.sessions.get(t, 's')).toBeUndefined();
    expect((await listSessions(store, t, { limit: 50, skip: 0 }, FIRST)).items).toEqual([]);
  });

  it('are recounted while traces keep moving their starts meanwhile, each counted once, and right on the next recount', async () => {
    const t = tenant();
    const turns = await Promise.all(['tr-a', 'tr-b', 'tr-c', 'tr-d'].map((id, i) => turn(t, id, 's', T0 + (i + 1) * 10_000)));
    await recordSessions(t, turns, EXPIRES, sessionDeps(store));
    const partition = keys.sessionPartition(t, 's');
    // Before each read of the partition from its start, a worker moves one more trace's start earlier:
    // its copy at the new start is put at once, the one at the old start deleted once the read is done.
    let moved = 0;
    const moving = {
      ...db,
      doc: {
        send: async (command: any) => {
          const pass = command instanceof QueryCommand && command.input.ExpressionAttributeValues?.[':pk'] === partition && !command.input.ExclusiveStartKey;
          const trace = pass && moved < turns.length ? turns[moved++]! : undefined;
          const copy = trace && sessionTraceItem(t, { ...trace.summary, sessionId: 's', startTimeMs: T0 - moved }, trace.revision + 1, EXPIRES);
          if (copy) await db.doc.send(new PutCommand({ TableName: db.tableName, Item: { ...copy, writeId: `moved-${moved}` } }));
          const answer = await db.doc.send(command);
          if (trace)
            await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', trace.summary.startTimeMs, trace.summary.traceId) }));
          return answer;
        },
      },
    } as unknown as Db;
    await sessionsRepository(moving).refreshQueued(t, 's', Date.now());
    expect(await store.sessions.get(t, 's')).toMatchObject({ traceCount: 4 });
    await store.sessions.refreshQueued(t, 's', Date.now());
    expect(await store.sessions.get(t, 's')).toMatchObject({ traceCount: 4, firstSeenMs: T0 - moved });
  });

  it("write a new version of their figures when a worker deleted a trace's copy at its old start, even unchanged, so a recount running meanwhile reads again", async () => {
    const t = tenant();
    const first = await turn(t, 'tr-first', 's', T0);
    const moving = await turn(t, 'tr-moving', 's', T0 + 20_000);
    await recordSessions(t, [first, moving], EXPIRES, sessionDeps(store));
    const before = await store.sessions.get(t, 's');
    // Its start moves earlier but stays after the first trace's: the figures do not change.
    const moved = { summary: { ...moving.summary, startTimeMs: T0 + 10_000 }, revision: moving.revision + 1, replacedStartMs: T0 + 20_000 };
    await store.traces.putSummary(t, moved.summary, moved.revision, EXPIRES);
    await recordSessions(t, [moved], EXPIRES, sessionDeps(store));
    const after = await store.sessions.get(t, 's');
    expect({ ...after, version: 0 }).toEqual({ ...before, version: 0 });
    expect(after!.version).toBe(before!.version + 1);
    // Stored again as it is: nothing to write.
    await recordSessions(t, [{ summary: moved.summary, revision: moved.revision }], EXPIRES, sessionDeps(store));
    expect((await store.sessions.get(t, 's'))!.version).toBe(after!.version);

    // Moved once more, its old copy deleted first by someone else (a recount that found both): still written again.
    const again = { summary: { ...moved.summary, startTimeMs: T0 + 5_000 }, revision: moved.revision + 1, replacedStartMs: T0 + 10_000 };
    await store.traces.putSummary(t, again.summary, again.revision, EXPIRES);
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', T0 + 10_000, 'tr-moving') }));
    await recordSessions(t, [again], EXPIRES, sessionDeps(store));
    expect((await store.sessions.get(t, 's'))!.version).toBe(after!.version + 1);
  });

  it('drop the copy at its old start of a trace whose start moved, written before copies had a write id', async () => {
    const t = tenant();
    const late = await turn(t, 'tr-x', 's', T0 + 10_000);
    await db.doc.send(new PutCommand({ TableName: db.tableName, Item: sessionTraceItem(t, { ...late.summary, sessionId: 's' }, late.revision, EXPIRES) }));
    const earlier = { summary: { ...late.summary, startTimeMs: T0 }, revision: 2000 };
    await store.traces.putSummary(t, earlier.summary, earlier.revision, EXPIRES);
    await recordSessions(t, [earlier], EXPIRES, sessionDeps(store));

    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', T0 + 10_000, 'tr-x'), ConsistentRead: true }));
    expect(Item).toBeUndefined();
    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items.map((i) => [i.traceId, i.startTimeMs])).toEqual([['tr-x', T0]]);
  });

  it('keep the copy at the start of a trace when a refresh judged it stale just before another worker rewrote it from the summary', async () => {
    const t = tenant();
    // The trace started at +10 s, then at T0 (its copy there at revision 2000), then at +10 s again, in error.
    const first = await turn(t, 'tr-x', 's', T0 + 10_000);
    const earlier = { summary: { ...first.summary, startTimeMs: T0 }, revision: 2000 };
    await store.traces.putSummary(t, earlier.summary, earlier.revision, EXPIRES);
    await recordSessions(t, [earlier], EXPIRES, sessionDeps(store));
    const latest = { summary: { ...first.summary, status: 'error' as const, errorCount: 1 }, revision: 3000 };
    await store.traces.putSummary(t, latest.summary, latest.revision, EXPIRES);
    // The latest summary's writer puts its copy at +10 s; a late worker with the first summary puts its
    // own there over it and reads the latest summary. The writer's refresh reads that copy (revision
    // 1000, older than T0's), and before it deletes it as stale, the late worker rewrites it from the
    // summary (revision 3000).
    const signal = () => {
      let give!: () => void;
      const given = new Promise<void>((resolve) => (give = resolve));
      return { give, given };
    };
    const lateRead = signal();
    const writerQueried = signal();
    const lateRewrote = signal();
    const lateWorker = holdingBackEach([
      {
        matches: readsSummaries,
        meanwhile: async () => {
          lateRead.give();
          await writerQueried.given;
        },
        after: true,
      },
      { matches: (command) => command instanceof UpdateCommand, meanwhile: async () => lateRewrote.give(), after: true },
    ]);
    let lateRun: Promise<void> | undefined;
    const writer = holdingBackEach([
      {
        matches: readsSummaries,
        meanwhile: async () => {
          lateRun = recordSessions(t, [first], EXPIRES, sessionDeps(lateWorker.store));
          await lateRead.given;
        },
      },
      {
        matches: (command) => command instanceof QueryCommand,
        meanwhile: async () => {
          writerQueried.give();
          await lateRewrote.given;
        },
        after: true,
      },
    ]);
    await recordSessions(t, [latest], EXPIRES, sessionDeps(writer.store));
    await lateRun;

    expect(writer.held() && lateWorker.held()).toBe(true);
    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items).toMatchObject([
      { traceId: 'tr-x', startTimeMs: T0 + 10_000, status: 'error' },
    ]);
    expect(await store.sessions.get(t, 's')).toMatchObject({ traceCount: 1, errorCount: 1, firstSeenMs: T0 + 10_000 });
  });

  it('are listed again by the next refresh when a worker stopped after their figures but before their index entry', async () => {
    const t = tenant();
    const first = await turn(t, 'tr-1', 's', T0);
    await recordSessions(t, [first], EXPIRES, sessionDeps(store));
    await db.doc.send(new DeleteCommand({ TableName: db.tableName, Key: keys.sessionIndex(t, 's') }));
    expect((await listSessions(store, t, { limit: 50, skip: 0 }, FIRST)).items).toEqual([]);

    await recordSessions(t, [first], EXPIRES, sessionDeps(store));
    expect((await listSessions(store, t, { limit: 50, skip: 0 }, FIRST)).items).toMatchObject([{ sessionId: 's', traceCount: 1 }]);
  });

  it('keep the newest copy of a trace when a worker that read less writes its copy after one that read more', async () => {
    const t = tenant();
    const older = await turn(t, 'tr-1', 's', T0);
    const newer = { summary: { ...older.summary, status: 'error' as const, errorCount: 1 }, revision: 2000 };
    await store.traces.putSummary(t, newer.summary, newer.revision, EXPIRES);
    await recordSessions(t, [newer], EXPIRES, sessionDeps(store));
    await recordSessions(t, [older], EXPIRES, sessionDeps(store));

    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items).toMatchObject([{ traceId: 'tr-1', status: 'error' }]);
    expect(await store.sessions.get(t, 's')).toMatchObject({ traceCount: 1, errorCount: 1 });
  });

  it('keep the alert marks on a trace written again after the judge marked it', async () => {
    const t = tenant();
    const marked = await turn(t, 'tr-1', 's', T0);
    await recordSessions(t, [marked], EXPIRES, sessionDeps(store));
    await store.traces.markAlerted(t, 'tr-1', 'hallucination');
    await recordSessions(t, [marked], EXPIRES, sessionDeps(store));

    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', T0, 'tr-1'), ConsistentRead: true }));
    expect(Item?.['alertTypes']).toEqual(new Set(['hallucination']));
    expect((await store.sessions.tracesPage(t, 's', { hasAlert: true }, FIRST, 'oldest-first')).items.map((i) => i.traceId)).toEqual(['tr-1']);
  });

  it('drop the copy a late worker writes of a trace deleted before it checked its copies', async () => {
    const t = tenant();
    const deleted = await turn(t, 'tr-1', 's', T0);
    await recordSessions(t, [deleted], EXPIRES, sessionDeps(store));
    await store.sessions.removeTraces(t, 's', ['tr-1']);
    await store.traces.deleteTrace(t, 'tr-1');
    await recordSessions(t, [deleted], EXPIRES, sessionDeps(store));

    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items).toEqual([]);
    expect(await store.sessions.get(t, 's')).toBeUndefined();
  });

  it('drop a late copy of a trace being deleted, even one another worker rewrote to a newer revision meanwhile', async () => {
    const t = tenant();
    const late = await turn(t, 'tr-1', 's', T0);
    expect(await store.traces.markDeleting(t, 'tr-1')).toEqual(['s']);
    // Between this worker's write of its copy and its check, a worker whose check read a newer
    // summary before the mark rewrites the copy from it.
    const copyKey = keys.sessionTrace(t, 's', T0, 'tr-1');
    const rewrite = () =>
      db.doc.send(
        new UpdateCommand({ TableName: db.tableName, Key: copyKey, UpdateExpression: 'SET revision = :r', ExpressionAttributeValues: { ':r': 2000 } }),
      );
    const slow = holdingBack(readsSummaries, rewrite);
    await recordSessions(t, [late], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: copyKey, ConsistentRead: true }));
    expect(Item).toBeUndefined();
    expect(await store.sessions.get(t, 's')).toBeUndefined();
  });

  it('drop the copy a late worker writes of a trace deleted before it checked, even one another worker rewrote from a summary read before the delete', async () => {
    const t = tenant();
    const late = await turn(t, 'tr-1', 's', T0);
    await store.traces.putSummary(t, { ...late.summary, status: 'error', errorCount: 1 }, 2000, EXPIRES);
    // The rewriter reads the newer summary; before it acts on it, the purge runs and the late worker
    // writes its copy. The rewriter rewrites that copy from the summary it read, then the late worker
    // checks its copy and finds the trace gone.
    let latePut!: () => void;
    const lateHasPut = new Promise<void>((resolve) => (latePut = resolve));
    let rewritten!: () => void;
    const rewriterDone = new Promise<void>((resolve) => (rewritten = resolve));
    const lateWorker = holdingBack(readsSummaries, async () => {
      latePut();
      await rewriterDone;
    });
    let lateRun: Promise<void> | undefined;
    const rewriter = holdingBack(
      readsSummaries,
      async () => {
        await store.traces.markDeleting(t, 'tr-1');
        await store.sessions.removeTraces(t, 's', ['tr-1']);
        await store.traces.deleteTrace(t, 'tr-1');
        lateRun = recordSessions(t, [late], EXPIRES, sessionDeps(lateWorker.store));
        await lateHasPut;
      },
      { after: true },
    );
    await recordSessions(t, [late], EXPIRES, sessionDeps(rewriter.store));
    const copyKey = keys.sessionTrace(t, 's', T0, 'tr-1');
    const { Item: rewrittenCopy } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: copyKey, ConsistentRead: true }));
    expect(rewrittenCopy).toMatchObject({ revision: 2000, status: 'error' });
    rewritten();
    await lateRun;

    expect(lateWorker.held() && rewriter.held()).toBe(true);
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: copyKey, ConsistentRead: true }));
    expect(Item).toBeUndefined();
    expect(await store.sessions.get(t, 's')).toBeUndefined();
  });

  it('keep the copy of a trace written again after its purge, when a late worker that found the trace being deleted drops its own copy after', async () => {
    const t = tenant();
    const late = await turn(t, 'tr-1', 's', T0);
    await store.traces.markDeleting(t, 'tr-1');
    // The late worker reads the marked summary; before it drops its copy, the purge finishes and the
    // trace is stored again (its spans sent once more), its copy at the same key.
    const purgedThenStoredAgain = async () => {
      await store.sessions.removeTraces(t, 's', ['tr-1']);
      await store.traces.deleteTrace(t, 'tr-1');
      const again = await turn(t, 'tr-1', 's', T0);
      await recordSessions(t, [again], EXPIRES, sessionDeps(store));
    };
    const slow = holdingBack(readsSummaries, purgedThenStoredAgain, { after: true });
    await recordSessions(t, [late], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items.map((i) => i.traceId)).toEqual(['tr-1']);
    expect(await store.sessions.get(t, 's')).toMatchObject({ traceCount: 1 });
  });

  it('keep a mark the judge adds while a worker rewrites a marked copy', async () => {
    const t = tenant();
    const marked = await turn(t, 'tr-1', 's', T0);
    await recordSessions(t, [marked], EXPIRES, sessionDeps(store));
    await store.traces.markAlerted(t, 'tr-1', 'hallucination');
    const slow = holdingBack(readsSummaries, () => store.traces.markAlerted(t, 'tr-1', 'loop'), { after: true });
    await recordSessions(t, [marked], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', T0, 'tr-1'), ConsistentRead: true }));
    expect(Item?.['alertTypes']).toEqual(new Set(['hallucination', 'loop']));
  });

  it('do not bring back a marked copy taken out of its session while a late worker checks it', async () => {
    const t = tenant();
    const stale = await turn(t, 'tr-1', 's', T0);
    await store.traces.putSummary(t, stale.summary, 2000, EXPIRES);
    await store.traces.markAlerted(t, 'tr-1', 'hallucination');
    const slow = holdingBack(readsSummaries, () => store.sessions.removeTraces(t, 's', ['tr-1']), { after: true });
    await recordSessions(t, [stale], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    const { Item } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: keys.sessionTrace(t, 's', T0, 'tr-1'), ConsistentRead: true }));
    expect(Item).toBeUndefined();
    expect((await store.sessions.tracesPage(t, 's', {}, FIRST, 'oldest-first')).items).toEqual([]);
  });

  it('are listed by their newest figures when an older refresh writes its index entry after a newer one', async () => {
    const t = tenant();
    const later = await turn(t, 'tr-later', 's', T0 + 60_000);
    const earlier = await turn(t, 'tr-earlier', 's', T0);
    const slow = holdingBack(writesIndexEntries, () => recordSessions(t, [earlier], EXPIRES, sessionDeps(store)));
    await recordSessions(t, [later], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    expect(await store.sessions.get(t, 's')).toMatchObject({ firstSeenMs: T0, traceCount: 2 });
    const firstMinute = { limit: 50, skip: 0, startDate: new Date(T0), endDate: new Date(T0 + 30_000) };
    expect((await listSessions(store, t, firstMinute, FIRST)).items.map((s) => s.sessionId)).toEqual(['s']);
  });

  it('are listed by their newest figures when an older refresh writes its index entry after a newer one, though the session grew large meanwhile', async () => {
    const t = tenant();
    const first = await Promise.all(Array.from({ length: LARGE_SESSION_TRACES - 1 }, (_, i) => turn(t, `tr-${i}`, 's', T0 + 60_000 + i * 1000)));
    await recordSessions(t, first, EXPIRES, sessionDeps(store));
    // The held worker's trace is the session's earliest so far, and its refresh the last of a small session.
    const early = await turn(t, 'tr-early', 's', T0 + 30_000);
    const earliest = await Promise.all([turn(t, 'tr-earliest', 's', T0), turn(t, 'tr-more-1', 's', T0 + 1000), turn(t, 'tr-more-2', 's', T0 + 2000)]);
    const slow = holdingBack(writesIndexEntries, () => recordSessions(t, earliest, EXPIRES, sessionDeps(store)));
    await recordSessions(t, [early], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    expect(await store.sessions.get(t, 's')).toMatchObject({ firstSeenMs: T0, traceCount: LARGE_SESSION_TRACES + 3 });
    const firstMinute = { limit: 50, skip: 0, startDate: new Date(T0), endDate: new Date(T0 + 29_000) };
    expect((await listSessions(store, t, firstMinute, FIRST)).items.map((s) => s.sessionId)).toEqual(['s']);
  });

  it('are not listed when their last trace is deleted while a worker writes their index entry', async () => {
    const t = tenant();
    const only = await turn(t, 'tr-1', 's', T0);
    const slow = holdingBack(writesIndexEntries, async () => {
      await store.sessions.removeTraces(t, 's', ['tr-1']);
      await store.traces.deleteTrace(t, 'tr-1');
    });
    await recordSessions(t, [only], EXPIRES, sessionDeps(slow.store));

    expect(slow.held()).toBe(true);
    expect(await store.sessions.get(t, 's')).toBeUndefined();
    expect(await listSessions(store, t, { limit: 50, skip: 0 }, FIRST)).toMatchObject({ items: [], total: 0 });
  });
});

const writesIndexEntries = (command: unknown) =>
  command instanceof BatchWriteCommand &&
  Object.values(command.input.RequestItems ?? {})
    .flat()
    .some((w) => w.PutRequest?.Item?.['entity'] === 'sessionIndex');
const readsSummaries = (command: unknown) =>
  command instanceof BatchGetCommand && Object.values(command.input.RequestItems ?? {}).some((r) => r.Keys?.some((k) => k['SK'] === 'SUMMARY'));

/** A command a worker's sessions send held back: `meanwhile` runs before it is sent or, with `after`, once it is answered and before the worker hears of it. */
interface Hold {
  matches: (command: unknown) => boolean;
  meanwhile: () => Promise<unknown>;
  after?: boolean;
}

/** The store as a worker sees it, with the first command matching each hold held back (each hold once). */
function holdingBackEach(holds: readonly Hold[]) {
  const done = new Set<Hold>();
  const slow: Db = {
    tableName: db.tableName,
    doc: {
      send: async (command: unknown) => {
        const hold = holds.find((h) => !done.has(h) && h.matches(command));
        if (hold) done.add(hold);
        if (hold && !hold.after) await hold.meanwhile();
        const answer = await db.doc.send(command as never);
        if (hold?.after) await hold.meanwhile();
        return answer;
      },
    } as unknown as Db['doc'],
  };
  return { store: { ...store, sessions: sessionsRepository(slow) }, held: () => done.size === holds.length };
}

/** The store as a worker sees it, the first command of its sessions that `matches` held back (see `Hold`). */
const holdingBack = (matches: Hold['matches'], meanwhile: Hold['meanwhile'], { after = false } = {}) => holdingBackEach([{ matches, meanwhile, after }]);
