import { describe, expect, it } from 'vitest';
import { MAX_INSIGHTS, MIN_INSIGHTS, templateNarrative } from '#shared/domain/profiles/narrative.ts';
import { sampleAllocation } from '#shared/domain/profiles/observe.ts';
import { profileStatistics, sampleTrace } from '#shared/domain/profiles/statistics.ts';
import { traceSummary } from '../analytics/fixtures.ts';
import { AgentWorld, DAY, HOUR, MINUTE, type Shape, storedSpan } from './fixtures.ts';

const MONDAY = Date.UTC(2026, 2, 2);

/** Three weeks of a support agent working 09:00–17:00 UTC on weekdays, one trace every 10 minutes. */
function officeAgent(): AgentWorld {
  const world = new AgentWorld();
  for (let day = 0; day < 21; day++) {
    const dayStart = MONDAY + day * DAY;
    if ([0, 6].includes(new Date(dayStart).getUTCDay())) continue;
    world.emit(
      dayStart + 9 * HOUR,
      dayStart + 17 * HOUR,
      10 * MINUTE,
      (i): Shape => ({
        tools:
          day === 0 && i === 7
            ? ['search', 'refund']
            : i % 6 === 0
              ? ['search', 'poll', 'poll', 'poll', 'poll', 'poll', 'answer']
              : ['search', 'lookup', 'answer'],
        errorType: i % 10 === 3 ? 'Timeout' : i % 24 === 5 ? 'ValueError' : undefined,
        durationMs: 1000 + (i % 10) * 100,
        sessionId: `s-${day}-${Math.floor(i / 3)}`,
      }),
    );
  }
  return world;
}

describe('profile statistics', () => {
  const world = officeAgent();
  const end = MONDAY + 21 * DAY;
  const stats = profileStatistics(world.evidence(MONDAY, end));
  const traces = world.traces.length;

  it('identity: what it was learned from and how mature the agent is', () => {
    expect(traces).toBe(720);
    expect(stats.basis).toEqual({
      startDate: new Date(MONDAY).toISOString(),
      endDate: new Date(end).toISOString(),
      traceCount: 720,
      sampledTraces: 720,
      activeDays: 15,
    });
    expect(stats.maturityLevel).toBe('established');
    expect(stats.commonTraceNames).toEqual(['answer question']);
  });

  it('tool patterns: distribution, common sequences and anomalous usage', () => {
    const { distribution, commonSequences, anomalousUsage } = stats.toolPatterns;
    expect(distribution.map((t) => t.tool)).toEqual(['search', 'answer', 'poll', 'lookup', 'refund']);
    expect(distribution[0]).toMatchObject({ tool: 'search', calls: 720, traceRate: 1 });
    expect(distribution.find((t) => t.tool === 'poll')).toMatchObject({ calls: 600, traceRate: 0.1667 });
    expect(distribution.reduce((sum, t) => sum + t.callShare, 0)).toBeCloseTo(1, 3);
    expect(commonSequences[0]).toEqual({ tools: ['search', 'lookup', 'answer'], traceRate: 0.8319 });
    expect(commonSequences.map((s) => s.tools)).toContainEqual(['search', 'poll', 'answer']);
    expect(anomalousUsage).toEqual([
      { tool: 'poll', kind: 'repeated', detail: 'called up to 5 times in one trace' },
      { tool: 'refund', kind: 'rare', detail: 'called in 1 of 720 sampled traces' },
    ]);
  });

  it('error patterns: rate, common types and trend', () => {
    const failed = world.traces.filter((t) => t.summary.status === 'error').length;
    expect(stats.errorPatterns.rate).toBe(Math.round((failed / traces) * 1e4) / 1e4);
    expect(stats.errorPatterns.commonTypes.map((e) => e.type)).toEqual(['Timeout', 'ValueError']);
    expect(stats.errorPatterns.trend).toBe('stable');
  });

  it('temporal patterns: volume by hour and weekday, peaks and seasonality', () => {
    const t = stats.temporalPatterns;
    expect(t.volumeByHour.slice(9, 17)).toEqual(new Array(8).fill(0.125));
    expect(t.volumeByHour.filter((share) => share === 0)).toHaveLength(16);
    expect(t.volumeByWeekday).toMatchObject({ monday: 0.2, friday: 0.2, saturday: 0, sunday: 0 });
    expect(t.peakHours).toEqual([9, 10, 11]);
    expect(t.peakWeekdays).toEqual(['monday', 'tuesday']);
    expect(t.seasonality).toBe('daily-and-weekly');
  });

  it('volume characteristics: daily averages, session length, typical latency, cost', () => {
    const v = stats.volumeCharacteristics;
    expect(v.dailyAverage).toBeCloseTo(720 / (21 - 9 / 24), 1);
    expect(v.busiestDay).toBe(48);
    expect(v.sessionLength.tracesPerSession).toBe(3);
    expect(v.sessionLength.durationMs).toBeGreaterThan(20 * MINUTE);
    expect(v.typicalLatency.p50Ms).toBeCloseTo(1400, -2);
    expect(v.typicalLatency.p95Ms).toBeCloseTo(1900, -2);
    const durations = world.traces.map((t) => t.summary.durationMs!);
    expect(v.typicalLatency.averageMs).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / traces, 1);
    expect(v).toMatchObject({ costPerTrace: 0.002, tokensPerTrace: 150 });
  });

  it('holds the tokens per trace at what a profile can store, though the rollups sum past it', () => {
    const heavy = new AgentWorld().emit(MONDAY, MONDAY + 2 * HOUR, HOUR);
    for (const trace of heavy.traces) {
      Object.assign(trace.summary, { inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: Number.MAX_SAFE_INTEGER, cost: Number.MAX_SAFE_INTEGER });
    }
    const { volumeCharacteristics } = profileStatistics(heavy.evidence(MONDAY, MONDAY + DAY));
    expect(volumeCharacteristics.tokensPerTrace).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('the template narrates the statistics: a use case, a summary and 3 to 5 insights', () => {
    const narrative = templateNarrative({ agent: { name: 'support-bot', description: '' }, statistics: stats });
    expect(narrative.useCase).toBe('Runs "answer question", calling search, answer and poll.');
    expect(narrative.behaviouralSummary).toMatch(
      /^About 34\.\d+ traces a day, busiest around 09:00 UTC\. Half finish within 1\.4 s, 95% within 1\.9 s\. .* fail, mostly with Timeout\. Typically calls search → lookup → answer\.$/,
    );
    expect(narrative.insights.length).toBeGreaterThanOrEqual(MIN_INSIGHTS);
    expect(narrative.insights.length).toBeLessThanOrEqual(MAX_INSIGHTS);
    expect(narrative.insights[0]).toMatch(/^Error rate is .*; the most common error type is Timeout/);
    expect(templateNarrative({ agent: { name: 'x', description: '' }, statistics: stats })).toEqual(narrative);
  });

  it('names as the usual tool the one the most traces call, not one a few traces call many times', () => {
    const polling = new AgentWorld().emit(MONDAY, MONDAY + 10 * HOUR, 10 * MINUTE, (i) => ({
      tools: i % 10 === 0 ? Array.from({ length: 20 }, () => 'jobs.status') : i % 3 === 0 ? [] : ['kb.search'],
    }));
    const s = profileStatistics(polling.evidence(MONDAY, MONDAY + 10 * HOUR));
    expect(s.toolPatterns.distribution[0]!.tool).toBe('jobs.status');
    const narrative = templateNarrative({ agent: { name: 'x', description: '' }, statistics: s });
    expect(narrative.insights).toContain('kb.search is the tool the most traces call: 60.0% of them.');
    expect(narrative.behaviouralSummary).toMatch(/ Usually calls kb\.search\.$/);
  });

  it('a rising error rate, a single day of data, and an agent without tools', () => {
    const young = new AgentWorld().emit(MONDAY, MONDAY + 10 * HOUR, 10 * MINUTE, (i) => ({
      tools: [],
      errorType: i >= 30 && i % 2 === 0 ? 'Overloaded' : undefined,
    }));
    const s = profileStatistics(young.evidence(MONDAY, MONDAY + 10 * HOUR));
    expect(s.errorPatterns.trend).toBe('rising');
    expect(s.temporalPatterns.seasonality).toBe('insufficient-data');
    expect(s.maturityLevel).toBe('new');
    expect(s.toolPatterns).toEqual({ distribution: [], commonSequences: [], anomalousUsage: [] });
    expect(s.volumeCharacteristics.dailyAverage).toBe(60);
    const narrative = templateNarrative({ agent: { name: 'x', description: '' }, statistics: s });
    expect(narrative.useCase).toBe('Runs "answer question" without tool calls.');
    expect(narrative.insights).toContain('No tool calls were seen in the sampled traces.');
  });

  it('an agent with no traces has empty, finite statistics', () => {
    const s = profileStatistics(new AgentWorld().evidence(MONDAY, MONDAY + DAY));
    expect(s.errorPatterns).toEqual({ rate: 0, commonTypes: [], trend: 'unknown' });
    expect(s.volumeCharacteristics).toMatchObject({
      dailyAverage: 0,
      busiestDay: 0,
      costPerTrace: 0,
      typicalLatency: { p50Ms: null, p95Ms: null, averageMs: null },
    });
    expect(JSON.stringify(s)).not.toMatch(/NaN|Infinity/);
  });
});

describe('sampled traces', () => {
  it('reads tool calls in start order (tool spans, or any span naming a tool) and the error types failed spans name', () => {
    const spans = [
      storedSpan({ spanId: 'b', kind: 'tool', name: 'fetch page', startTimeMs: 20, status: 'error', errorType: null }),
      storedSpan({ spanId: 'a', kind: 'llm', toolName: 'calculator', startTimeMs: 10 }),
      storedSpan({ spanId: 'r', kind: 'agent', startTimeMs: 0, status: 'error', errorType: 'ToolFailed' }),
    ];
    const sampled = sampleTrace(traceSummary({ traceId: 'x', status: 'error' }), spans);
    expect(sampled.toolCalls).toEqual([
      { tool: 'calculator', failed: false },
      { tool: 'fetch page', failed: true },
    ]);
    expect(sampled.errorTypes).toEqual(['ToolFailed']);
    const untyped = sampleTrace(traceSummary({ status: 'error' }), [storedSpan({ status: 'error' }), storedSpan({ spanId: 'c', status: 'error' })]);
    expect(untyped.errorTypes).toEqual(['unknown']);
  });

  it('spreads a sample over the days like their traffic, at least one per day', () => {
    expect(
      sampleAllocation(
        new Map([
          [1, 900],
          [2, 100],
          [3, 1],
          [4, 0],
        ]),
        100,
      ),
    ).toEqual(
      new Map([
        [1, 90],
        [2, 10],
        [3, 1],
      ]),
    );
  });
});
