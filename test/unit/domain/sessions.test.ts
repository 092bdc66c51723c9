import { describe, expect, it } from 'vitest';
import { catalog } from '#shared/catalog.ts';
import {
  LARGE_SESSION_TRACES,
  NOTE_CLOCK_MARGIN_MS,
  REFRESH_OVERDUE_AFTER_MS,
  recountDue,
  refreshComing,
  refreshDelaySeconds,
  SESSION_TEXT_CHARS,
  sessionFigures,
  sessionFiguresFold,
  traceConversation,
} from '#shared/domain/sessions/sessions.ts';
import { llm, spansOf } from '../../fixtures/judge/build.ts';
import { traceSummary } from '../analytics/fixtures.ts';

const T0 = Date.UTC(2026, 4, 1, 9);

describe('session figures', () => {
  it('sum the traces and take the agent and user of the earliest that names them, whatever the order', () => {
    const traces = [
      traceSummary({
        traceId: 'b',
        startTimeMs: T0 + 60_000,
        endTimeMs: T0 + 90_000,
        status: 'error',
        inputTokens: 10,
        outputTokens: 5,
        cost: 0.1,
        agentId: 'agt_2',
        userId: 'u-2',
      }),
      traceSummary({
        traceId: 'a',
        startTimeMs: T0,
        endTimeMs: T0 + 1000,
        inputTokens: 1,
        outputTokens: 2,
        cost: 0.2,
        agentId: null,
        agentName: null,
        userId: null,
      }),
      traceSummary({ traceId: 'c', startTimeMs: T0 + 30_000, endTimeMs: null, agentId: 'agt_1', agentName: 'first', userId: 'u-1' }),
    ];
    const figures = sessionFigures('s', traces);
    expect(figures).toEqual({
      sessionId: 's',
      agentId: 'agt_1',
      agentName: 'first',
      userId: 'u-1',
      firstSeenMs: T0,
      lastSeenMs: T0 + 90_000,
      traceCount: 3,
      errorCount: 1,
      inputTokens: 11,
      outputTokens: 7,
      totalTokens: 18,
      cost: 0.3,
      durationMs: 90_000,
    });
    expect(sessionFigures('s', [...traces].reverse())).toEqual(figures);

    // Taken one at a time, as a recount reads them page by page, in whatever order they come.
    for (const order of [traces, [...traces].reverse(), [traces[2]!, traces[0]!, traces[1]!]]) {
      const fold = sessionFiguresFold('s');
      for (const trace of order) fold.add(trace);
      expect(fold.result()).toEqual(figures);
    }
    expect(sessionFiguresFold('s').result()).toBeUndefined();
  });

  it('hold sums past 2^53 at the limit the store reads back', () => {
    const costly = ['a', 'b'].map((traceId) => traceSummary({ traceId, startTimeMs: T0, cost: 5e15, inputTokens: 5e15, outputTokens: 5e15 }));
    expect(sessionFigures('s', costly)).toMatchObject({
      cost: Number.MAX_SAFE_INTEGER,
      inputTokens: Number.MAX_SAFE_INTEGER,
      outputTokens: Number.MAX_SAFE_INTEGER,
      totalTokens: Number.MAX_SAFE_INTEGER,
    });
  });

  it('take, of traces that start together, the agent and user of the one first by id', () => {
    const tied = ['y', 'x'].map((traceId) => traceSummary({ traceId, startTimeMs: T0, agentId: `agt_${traceId}`, userId: `u-${traceId}` }));
    const fold = sessionFiguresFold('s');
    for (const trace of tied) fold.add(trace);
    expect(fold.result()).toMatchObject({ agentId: 'agt_x', userId: 'u-x' });
  });
});

describe('what a trace was asked and answered', () => {
  it("is its root's input and output, cut for the session's view", () => {
    const spans = spansOf('t', { input: 'q'.repeat(SESSION_TEXT_CHARS + 10), steps: [llm('inner')], output: 'final' });
    const { input, output } = traceConversation(spans);
    expect(input).toBe(`${'q'.repeat(SESSION_TEXT_CHARS)}…[truncated 10 characters]`);
    expect(output).toBe('final');
  });

  it('without a root, the earliest input and the last output any span has', () => {
    const [, first, second] = spansOf('t', { input: null, steps: [llm('one', { input: 'asked' }), llm('two')], output: null });
    expect(traceConversation([second!, first!])).toEqual({ input: 'asked', output: 'two' });
    expect(traceConversation([])).toEqual({ input: null, output: null });
  });
});

describe('the refresh of a large session', () => {
  it('waits longer the larger the session, so its refreshes read about as many traces a second whatever its size, within what SQS can delay', () => {
    expect(refreshDelaySeconds(LARGE_SESSION_TRACES + 1)).toBe(10);
    expect(refreshDelaySeconds(1000)).toBe(10);
    expect(refreshDelaySeconds(1001)).toBe(11);
    expect(refreshDelaySeconds(30_000)).toBe(300);
    expect(refreshDelaySeconds(90_000)).toBe(900);
    expect(refreshDelaySeconds(10_000_000)).toBe(900);
  });

  it('counts as coming only until a clock margin before it is due: a note written after its refresh ran keeps no one waiting', () => {
    const dueAtMs = 1_800_000_000_000;
    expect(refreshComing(null, dueAtMs - 60_000)).toBe(false);
    expect(refreshComing(dueAtMs, dueAtMs - NOTE_CLOCK_MARGIN_MS - 1)).toBe(true);
    expect(refreshComing(dueAtMs, dueAtMs - NOTE_CLOCK_MARGIN_MS)).toBe(false);
    expect(refreshComing(dueAtMs, dueAtMs)).toBe(false);
  });

  it("is told to readers until its message can no longer be received again (the ingest queue's visibility timeout times its receives)", () => {
    const ingest = catalog.queues.find((q) => q.id === 'ingest')!;
    expect(REFRESH_OVERDUE_AFTER_MS).toBeGreaterThanOrEqual(ingest.visibilityTimeoutSeconds * ingest.maxReceiveCount * 1000);
    const dueAtMs = 1_800_000_000_000;
    expect(recountDue(undefined, dueAtMs)).toBeNull();
    expect(recountDue(dueAtMs, dueAtMs - 60_000)).toBe(dueAtMs);
    expect(recountDue(dueAtMs, dueAtMs + REFRESH_OVERDUE_AFTER_MS)).toBe(dueAtMs);
    expect(recountDue(dueAtMs, dueAtMs + REFRESH_OVERDUE_AFTER_MS + 1)).toBeNull();
  });
});
