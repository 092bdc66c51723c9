import { describe, expect, it, vi } from 'vitest';
import { type AssignableExperiment, assignVariant } from '#shared/domain/experiments/assignment.ts';

const SUBJECTS = 100_000;
const subjects = Array.from({ length: SUBJECTS }, (_, i) => `subject-${i}`);

const experiment = (weights: number[], trafficPercentage = 100, id = 'exp_distribution'): AssignableExperiment => ({
  id,
  trafficPercentage,
  variants: weights.map((weight, i) => ({ key: String.fromCharCode(65 + i), weight, config: { index: i } })),
});

/** Share of the assigned subjects per variant key, in percent. */
function shares(e: AssignableExperiment) {
  const counts = new Map<string, number>();
  let assigned = 0;
  for (const subject of subjects) {
    const variant = assignVariant(e, subject);
    if (!variant) continue;
    assigned += 1;
    counts.set(variant.key, (counts.get(variant.key) ?? 0) + 1);
  }
  return { assigned, percent: Object.fromEntries(e.variants.map((v) => [v.key, (100 * (counts.get(v.key) ?? 0)) / assigned])) };
}

describe('variant assignment', () => {
  it.each([[[50, 50]], [[50, 30, 20]], [[33.33, 33.33, 33.34]], [[90, 5, 2.5, 2.5]], [[10, 10, 10, 10, 10, 10, 10, 10, 10, 10]]])(
    'over 100,000 subjects follows the weights %j to within 1 point',
    (weights) => {
      const { assigned, percent } = shares(experiment(weights));
      expect(assigned).toBe(SUBJECTS);
      for (const [i, weight] of weights.entries()) expect(Math.abs(percent[String.fromCharCode(65 + i)]! - weight)).toBeLessThan(1);
    },
  );

  it('takes trafficPercentage of the subjects, and splits those by the weights', () => {
    const { assigned, percent } = shares(experiment([70, 30], 25));
    expect(Math.abs((100 * assigned) / SUBJECTS - 25)).toBeLessThan(1);
    expect(Math.abs(percent['A']! - 70)).toBeLessThan(1);
    expect(Math.abs(percent['B']! - 30)).toBeLessThan(1);
  });

  it('widening the traffic only adds subjects: nobody already in changes variant', () => {
    const narrow = experiment([50, 50], 20);
    const wide = experiment([50, 50], 60);
    for (const subject of subjects.slice(0, 5000)) {
      const before = assignVariant(narrow, subject);
      if (before) expect(assignVariant(wide, subject)).toEqual(before);
    }
  });

  it('assigns nobody at 0% and everybody at 100%', () => {
    expect(subjects.slice(0, 1000).every((s) => assignVariant(experiment([50, 50], 0), s) === null)).toBe(true);
    expect(subjects.slice(0, 1000).every((s) => assignVariant(experiment([50, 50], 100), s) !== null)).toBe(true);
  });

  it('gives different experiments independent splits', () => {
    const first = experiment([50, 50], 100, 'exp_one');
    const second = experiment([50, 50], 100, 'exp_two');
    const same = subjects.slice(0, 10_000).filter((s) => assignVariant(first, s)!.key === assignVariant(second, s)!.key).length;
    expect(Math.abs(same / 10_000 - 0.5)).toBeLessThan(0.02);
  });

  it('answers with the variant and its config', () => {
    expect(assignVariant(experiment([50, 30, 20], 100, 'exp_golden'), 'user-2')).toEqual({ key: 'B', weight: 30, config: { index: 1 } });
  });
});

describe('stickiness', () => {
  const golden = experiment([50, 30, 20], 100, 'exp_golden');
  const halfTraffic = experiment([50, 30, 20], 50, 'exp_golden');
  const users = ['user-1', 'user-2', 'user-3', 'user-4', 'user-5', 'user-6', 'user-7', 'user-8'];

  it('is pinned: SHA-256 gives these answers on any machine and runtime (checked against Python hashlib)', () => {
    expect(users.map((u) => assignVariant(golden, u)?.key)).toEqual(['A', 'B', 'A', 'B', 'A', 'A', 'A', 'B']);
    expect(users.map((u) => assignVariant(halfTraffic, u)?.key ?? null)).toEqual(['A', 'B', null, null, null, 'A', null, 'B']);
  });

  it('gives the same answers from a freshly loaded module (a new Lambda instance)', async () => {
    const before = subjects.slice(0, 2000).map((s) => assignVariant(golden, s)?.key);
    vi.resetModules();
    const fresh = await import('#shared/domain/experiments/assignment.ts');
    expect(fresh.assignVariant).not.toBe(assignVariant);
    expect(subjects.slice(0, 2000).map((s) => fresh.assignVariant(golden, s)?.key)).toEqual(before);
  });

  it('does not depend on the order subjects are asked in', () => {
    const forward = subjects.slice(0, 1000).map((s) => assignVariant(golden, s)?.key);
    const backward = subjects
      .slice(0, 1000)
      .reverse()
      .map((s) => assignVariant(golden, s)?.key)
      .reverse();
    expect(backward).toEqual(forward);
  });
});
