import { describe, expect, it } from 'vitest';
import {
  chiSquareGoodnessOfFit,
  chiSquareSurvival,
  normalCdf,
  sampleOf,
  studentTCdf,
  studentTQuantile,
  twoProportionTest,
  welchTest,
} from '#shared/domain/experiments/statistics.ts';

describe('distributions', () => {
  it('normal CDF matches the standard table', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 12);
    expect(normalCdf(1)).toBeCloseTo(0.841344746, 9);
    expect(normalCdf(-3)).toBeCloseTo(0.001349898, 9);
    // Far tails keep their relative precision (no 1 − (1 − tiny) cancellation).
    expect(normalCdf(-8) / 6.220960574271785e-16).toBeCloseTo(1, 9);
  });

  it.each([
    // df, t(0.975), t(0.995) — the two-sided 5% and 1% critical values of the Student t table
    [1, 12.706, 63.657],
    [2, 4.303, 9.925],
    [3, 3.182, 5.841],
    [5, 2.571, 4.032],
    [10, 2.228, 3.169],
    [30, 2.042, 2.75],
    [120, 1.98, 2.617],
    [Infinity, 1.96, 2.576],
  ])('Student t with %s degrees of freedom has the tabulated critical values', (df, t975, t995) => {
    expect(studentTQuantile(0.975, df)).toBeCloseTo(t975, 3);
    expect(studentTQuantile(0.995, df)).toBeCloseTo(t995, 3);
    expect(studentTCdf(t975, df)).toBeCloseTo(0.975, 4);
    expect(studentTCdf(-t995, df)).toBeCloseTo(0.005, 4);
  });

  it('Student t CDF is exact for non-integer degrees of freedom and symmetric', () => {
    // Reference values from scipy.stats.t.cdf.
    expect(studentTCdf(2.5, 3.7)).toBeCloseTo(0.9640889885, 9);
    expect(studentTCdf(-40, 2)).toBeCloseTo(0.000312207336, 12);
    expect(studentTCdf(1.3, 7.5) + studentTCdf(-1.3, 7.5)).toBeCloseTo(1, 14);
    expect(studentTQuantile(0.025, 9.9)).toBeCloseTo(-studentTQuantile(0.975, 9.9), 10);
  });

  it.each([
    // x, df, P(X ≥ x) — chi-square table
    [3.841, 1, 0.05],
    [10.828, 1, 0.001],
    [5.991, 2, 0.05],
    [13.816, 2, 0.001],
    [16.266, 3, 0.001],
    [27.877, 9, 0.001],
  ])('chi-square survival at %s with %s degrees of freedom is %s', (x, df, p) => {
    expect(chiSquareSurvival(x, df)).toBeCloseTo(p, p < 0.01 ? 6 : 4);
  });
});

describe('two-proportion z-test', () => {
  it('control 200/1000 against 250/1000: z = 2.677, p = 0.0074, CI 1.35 to 8.65 points', () => {
    const result = twoProportionTest({ successes: 200, trials: 1000 }, { successes: 250, trials: 1000 })!;
    expect(result.difference).toBeCloseTo(0.05, 12);
    expect(result.statistic).toBeCloseTo(2.6774, 4);
    expect(result.pValue).toBeCloseTo(0.00742, 5);
    expect(result.confidenceInterval.lower).toBeCloseTo(0.013464, 6);
    expect(result.confidenceInterval.upper).toBeCloseTo(0.086536, 6);
    expect(result.relativeDifference).toBeCloseTo(0.25, 12);
    expect(result.degreesOfFreedom).toBeNull();
  });

  it('equal proportions give z = 0 and p = 1; all-success on both sides too', () => {
    expect(twoProportionTest({ successes: 30, trials: 60 }, { successes: 15, trials: 30 })).toMatchObject({ statistic: 0, pValue: 1 });
    expect(twoProportionTest({ successes: 40, trials: 40 }, { successes: 50, trials: 50 })).toMatchObject({ statistic: 0, pValue: 1, difference: 0 });
  });

  it('has nothing to say without trials', () => {
    expect(twoProportionTest({ successes: 0, trials: 0 }, { successes: 3, trials: 5 })).toBeNull();
  });
});

describe("Welch's t-test (the worked examples of the Wikipedia article)", () => {
  const cases = [
    {
      name: 'equal sizes, similar variances',
      a: [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4],
      b: [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4],
      t: 2.4554,
      df: 24.9885,
      p: 0.0214,
    },
    {
      name: 'unequal sizes, the smaller sample more variable (df ≈ 9.9)',
      a: [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8],
      b: [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8],
      t: 1.5654,
      df: 9.9047,
      p: 0.1488,
    },
    {
      name: 'unequal sizes, the larger sample more variable',
      a: [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0],
      b: [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3],
      t: 2.2255,
      df: 24.5246,
      p: 0.0355,
    },
  ];

  it.each(cases)('$name: t = $t, df = $df, p = $p', ({ a, b, t, df, p }) => {
    const result = welchTest(sampleOf(a), sampleOf(b))!;
    expect(result.statistic).toBeCloseTo(t, 4);
    expect(result.degreesOfFreedom).toBeCloseTo(df, 4);
    expect(result.pValue).toBeCloseTo(p, 4);
  });

  it('uses the t distribution, not the normal: p = 0.1488, where a z-test would say 0.117', () => {
    const [, small] = cases;
    const result = welchTest(sampleOf(small!.a), sampleOf(small!.b))!;
    expect(result.pValue).toBeCloseTo(0.14884, 5);
    expect(2 * normalCdf(-result.statistic!)).toBeCloseTo(0.1175, 4);
    // The interval uses t(0.975, 9.9) = 2.2318…, not 1.96 (scipy: −0.64842 to 3.69842).
    expect(result.confidenceInterval.lower).toBeCloseTo(-0.64842, 5);
    expect(result.confidenceInterval.upper).toBeCloseTo(3.69842, 5);
  });

  it('needs two observations per side; constant samples are identical or certainly different', () => {
    expect(welchTest(sampleOf([1]), sampleOf([1, 2, 3]))).toBeNull();
    expect(welchTest(sampleOf([5, 5, 5]), sampleOf([5, 5]))).toMatchObject({ pValue: 1, statistic: 0 });
    expect(welchTest(sampleOf([5, 5, 5]), sampleOf([7, 7]))).toMatchObject({ pValue: 0, statistic: null, difference: 2 });
    // Costs whose mean does not round back to them (30 × $0.01 sums to 0.30000000000000004) vary not at all either.
    expect(sampleOf(Array(30).fill(0.01)).variance).toBe(0);
    expect(welchTest(sampleOf(Array(30).fill(0.01)), sampleOf(Array(29).fill(0.02)))).toMatchObject({ pValue: 0, statistic: null, degreesOfFreedom: null });
    expect(welchTest(sampleOf(Array(10).fill(0.01)), sampleOf(Array(30).fill(0.01)))).toMatchObject({ pValue: 1, statistic: 0, difference: 0 });
  });

  it('relative difference and its delta-method interval', () => {
    const result = welchTest({ count: 100, mean: 200, variance: 400 }, { count: 100, mean: 220, variance: 400 })!;
    expect(result.relativeDifference).toBeCloseTo(0.1, 12);
    const halfWidth = (result.relativeConfidenceInterval!.upper - result.relativeConfidenceInterval!.lower) / 2;
    // sqrt(4/200² + 220²·4/200⁴) × t(0.975, 198)
    expect(halfWidth).toBeCloseTo(Math.sqrt(4 / 200 ** 2 + (220 ** 2 * 4) / 200 ** 4) * 1.97202, 5);
  });
});

describe('chi-square goodness of fit (sample-ratio mismatch)', () => {
  it('50,000 against 50,500 on a 50/50 split: chi² = 2.488, p = 0.115', () => {
    const fit = chiSquareGoodnessOfFit([50_000, 50_500], [0.5, 0.5])!;
    expect(fit.statistic).toBeCloseTo(2.48756, 5);
    expect(fit.degreesOfFreedom).toBe(1);
    expect(fit.pValue).toBeCloseTo(0.11475, 5);
  });

  it('flags a 52/48 split of 10,000 (p ≈ 6e-5) and takes three-way weights', () => {
    expect(chiSquareGoodnessOfFit([5200, 4800], [0.5, 0.5])!.pValue).toBeLessThan(0.001);
    const fit = chiSquareGoodnessOfFit([500, 300, 200], [0.5, 0.3, 0.2])!;
    expect(fit).toMatchObject({ statistic: 0, degreesOfFreedom: 2, pValue: 1 });
  });

  it('declines when an expected count is below 5', () => {
    expect(chiSquareGoodnessOfFit([3, 5], [0.5, 0.5])).toBeNull();
  });
});
