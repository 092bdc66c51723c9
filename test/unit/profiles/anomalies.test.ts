import { describe, expect, it } from 'vitest';
import { generateAnchors } from '#shared/domain/profiles/anchors.ts';
import { detectTraceAnomalies } from '#shared/domain/profiles/anomalies.ts';
import { profileContext } from '#shared/domain/profiles/context.ts';
import { newLearningState } from '#shared/domain/profiles/learning.ts';
import { AgentWorld, agentTrace, DAY, HOUR, MINUTE, profileOf, type Shape } from './fixtures.ts';

const MONDAY = Date.UTC(2026, 2, 2);
const world = new AgentWorld();
for (let day = 0; day < 7; day++) {
  world.emit(
    MONDAY + day * DAY + 9 * HOUR,
    MONDAY + day * DAY + 17 * HOUR,
    10 * MINUTE,
    (i): Shape => ({
      tools: day === 0 && i === 1 ? ['search', 'refund'] : ['search', 'lookup', 'answer'],
      errorType: i % 10 === 3 ? 'Timeout' : undefined,
    }),
  );
}
const profile = profileOf(world.evidence(MONDAY, MONDAY + 7 * DAY), new Date(MONDAY + 7 * DAY));
const at = (hour: number) => MONDAY + 7 * DAY + hour * HOUR;
const anomaliesOf = (hour: number, shape: Shape = {}) => {
  const t = agentTrace('new', at(hour), shape);
  return detectTraceAnomalies(t.summary, t.spans, profile);
};

describe('per-trace anomaly detection against a steady-state profile', () => {
  it('finds nothing in a usual trace', () => {
    expect(anomaliesOf(10, { tools: ['search', 'lookup', 'answer'] })).toEqual([]);
    expect(anomaliesOf(10, { errorType: 'Timeout' })).toEqual([]);
  });

  it('flags a tool the profile never saw, and a rarely used one', () => {
    expect(anomaliesOf(10, { tools: ['search', 'delete_account'] })).toEqual([
      { type: 'unusual-tool', message: 'tool "delete_account" is not part of the agent\'s profile' },
    ]);
    expect(anomaliesOf(10, { tools: ['search', 'refund', 'answer'] })).toEqual([
      { type: 'unusual-tool', message: 'tool "refund" is rarely used (called in 1 of 336 sampled traces)' },
    ]);
  });

  it('flags an error type the agent does not usually have', () => {
    expect(anomaliesOf(10, { errorType: 'PermissionDenied' })).toEqual([
      { type: 'unexpected-error', message: 'error type "PermissionDenied" is not among the agent\'s usual errors' },
    ]);
  });

  it('flags activity at an hour the agent is normally idle', () => {
    expect(anomaliesOf(3)).toEqual([{ type: 'off-hours', message: "started at 03:00 UTC, an hour with 0.0% of the agent's traffic" }]);
    const young = { ...profile, temporalPatterns: { ...profile.temporalPatterns, seasonality: 'insufficient-data' as const } };
    const t = agentTrace('new', at(3));
    expect(detectTraceAnomalies(t.summary, t.spans, young)).toEqual([]);
  });

  it('flags latency and cost far outside the profile', () => {
    expect(profile.volumeCharacteristics.typicalLatency.p95Ms).toBeCloseTo(1000, -1);
    expect(anomaliesOf(10, { durationMs: 2900 })).toEqual([]);
    expect(anomaliesOf(10, { durationMs: 3100 })).toEqual([
      { type: 'high-latency', message: expect.stringMatching(/^took 3\.1 s, over 3× the profile's p95 of 1\.0 s$/) },
    ]);
    expect(anomaliesOf(10, { cost: 0.011 })).toEqual([{ type: 'high-cost', message: "cost $0.011, over 5× the profile's average of $0.0020" }]);
  });
});

describe('the profile as evaluator context', () => {
  it('is null before the first profile', () => {
    expect(profileContext(newLearningState('t', 'a'))).toBeNull();
    expect(profileContext(undefined)).toBeNull();
  });

  it('sums up identity, tools, errors, latency, anchors and the trace anomalies in a few lines', () => {
    const anchors = generateAnchors(profile);
    const text = profileContext({ phase: 'steady-state', profile, anchors }, [{ type: 'off-hours', message: 'started at 03:00 UTC' }])!;
    const lines = text.split('\n');
    expect(lines[0]).toBe(`Behavioural profile (steady-state, developing agent, learned ${profile.learnedAt}):`);
    expect(lines).toContain(`Use case: ${profile.identity.useCase}`);
    expect(lines.find((l) => l.startsWith('Tools:'))).toBe(
      'Tools: search (100.0% of traces), answer (99.7% of traces), lookup (99.7% of traces), refund (0.3% of traces); usual sequence search → lookup → answer',
    );
    expect(lines.find((l) => l.startsWith('Errors:'))).toMatch(/^Errors: \d+\.\d% of traces \(\w+\); usual types Timeout$/);
    expect(lines.filter((l) => l.startsWith('Anchor:'))).toHaveLength(anchors.length);
    expect(lines.at(-1)).toBe('Anomaly of this trace (off-hours): started at 03:00 UTC');
    expect(text.length).toBeLessThan(2000);
  });
});
