import { describe, expect, it } from 'vitest';
import { type Anchor, evaluateAnchors, generateAnchors, mostAnchorsFailing, rebaseAnchors } from '#shared/domain/profiles/anchors.ts';
import { profileEditBody } from '#shared/schemas/profiles.ts';
import { AgentWorld, HOUR, MINUTE, profileOf, settings } from './fixtures.ts';

const T0 = Date.UTC(2026, 2, 2, 8);
const now = new Date(T0 + 10 * HOUR);
// 1 in 25 traces fails; 1 s traces, $0.002 each; search and answer in every trace, lookup in half.
const world = new AgentWorld().emit(T0, T0 + 10 * HOUR, 5 * MINUTE, (i) => ({
  errorType: i % 25 === 24 ? 'Timeout' : undefined,
  tools: i % 2 === 0 ? ['search', 'lookup', 'answer'] : ['search', 'answer'],
}));
const profile = profileOf(world.evidence(T0, T0 + 10 * HOUR), now);

describe('anchors', () => {
  const anchors = generateAnchors(profile);
  const byId = (list: Anchor[], id: string) => list.find((a) => a.id === id)!;

  it('are generated from the profile: error rate, latency, cost per trace and the main tools, unmeasured', () => {
    expect(anchors.map((a) => [a.id, a.min, a.max])).toEqual([
      ['error-rate', null, 0.0833],
      ['average-latency', null, 1500],
      ['p95-latency', null, 2000],
      ['cost-per-trace', null, 0.004],
      ['tool-usage:answer', 0.5, 1],
      ['tool-usage:search', 0.5, 1],
      ['tool-usage:lookup', 0.25, 0.8],
    ]);
    expect(profile.errorPatterns.rate).toBe(0.0333);
    expect(byId(anchors, 'error-rate').description).toBe('Error rate at most 8.3%');
    expect(byId(anchors, 'tool-usage:lookup').description).toBe('lookup called in 25.0%–80.0% of traces');
    expect(anchors.every((a) => a.status === 'unknown' && a.lastValue === null && a.lastEvaluatedAt === null)).toBe(true);
  });

  it('pass within their bounds, fail outside them, and stay unknown on too few traces', () => {
    const start = now.getTime();
    const usual = new AgentWorld().emit(start, start + HOUR, 5 * MINUTE, (i) => ({
      tools: i % 2 === 0 ? ['search', 'lookup', 'answer'] : ['search', 'answer'],
    }));
    const passing = evaluateAnchors(anchors, usual.measure(start, start + HOUR), settings.anchorMinTraces, now);
    expect(passing.map((a) => a.status)).toEqual(new Array(7).fill('passing'));
    expect(byId(passing, 'tool-usage:lookup')).toMatchObject({ lastValue: 0.5, lastSampleSize: 12, lastEvaluatedAt: now.toISOString() });

    const broken = new AgentWorld().emit(start, start + HOUR, 5 * MINUTE, () => ({
      tools: ['search', 'answer'],
      errorType: 'Timeout',
      durationMs: 5000,
      cost: 0.01,
    }));
    const failing = evaluateAnchors(anchors, broken.measure(start, start + HOUR), settings.anchorMinTraces, now);
    expect(failing.filter((a) => a.status === 'failing').map((a) => a.id)).toEqual([
      'error-rate',
      'average-latency',
      'p95-latency',
      'cost-per-trace',
      'tool-usage:lookup',
    ]);
    expect(byId(failing, 'error-rate')).toMatchObject({ lastValue: 1, status: 'failing' });
    expect(mostAnchorsFailing(failing)).toBe(true);
    expect(mostAnchorsFailing(passing)).toBe(false);

    const few = new AgentWorld().emit(start, start + HOUR, 10 * MINUTE, () => ({ errorType: 'Timeout' }));
    const unknown = evaluateAnchors(anchors, few.measure(start, start + HOUR), settings.anchorMinTraces, now);
    expect(unknown.every((a) => a.status === 'unknown')).toBe(true);
    expect(byId(unknown, 'error-rate')).toMatchObject({ lastValue: 1, lastSampleSize: 6 });
    const none = evaluateAnchors(anchors, new AgentWorld().measure(start, start + HOUR), settings.anchorMinTraces, now);
    expect(none.every((a) => a.status === 'unknown' && a.lastValue === null)).toBe(true);
  });

  it('exactly half failing is not more than half', () => {
    const half = anchors.slice(0, 6).map((a, i) => ({ ...a, status: i < 3 ? ('failing' as const) : ('passing' as const) }));
    expect(mostAnchorsFailing(half)).toBe(false);
    expect(mostAnchorsFailing([])).toBe(false);
  });

  it('regenerated for an edited profile, are judged on what they last measured', () => {
    const start = now.getTime();
    const measured = evaluateAnchors(anchors, world.measure(start - HOUR, start), settings.anchorMinTraces, now);
    const stricter = { ...profile, errorPatterns: { ...profile.errorPatterns, rate: 0 } };
    const rebased = rebaseAnchors(generateAnchors(stricter), measured, settings.anchorMinTraces);
    expect(byId(rebased, 'error-rate')).toMatchObject({ max: 0.05, lastValue: byId(measured, 'error-rate').lastValue });
    expect(byId(rebased, 'error-rate').status).toBe(byId(measured, 'error-rate').lastValue! > 0.05 ? 'failing' : 'passing');
  });
});

describe('the profile edit body', () => {
  it('accepts the editable fields and names anything else', () => {
    expect(profileEditBody.safeParse({ identity: { maturityLevel: 'developing' }, errorPatterns: { rate: 0.1 } }).success).toBe(true);
    const problems = (body: unknown) => profileEditBody.safeParse(body).error?.issues.map((i) => `${i.path.join('.')}: ${i.code}`);
    expect(problems({})).toEqual([': custom']);
    expect(problems({ toolPatterns: {} })).toContain(': unrecognized_keys');
    expect(problems({ errorPatterns: { rate: 1.5 } })).toEqual(['errorPatterns.rate: too_big']);
    expect(problems({ insights: ['only one'] })).toEqual(['insights: too_small']);
    expect(problems({ identity: { maturityLevel: 'ancient' } })).toEqual(['identity.maturityLevel: invalid_value']);
  });
});
