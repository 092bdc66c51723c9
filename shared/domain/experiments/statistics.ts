/**
 * The statistics behind experiment results: the normal, Student-t and chi-square distributions,
 * computed exactly (to about 1e-12) from the regularized incomplete gamma and beta functions, and the
 * three tests built on them. No normal approximation stands in for the t distribution: with few
 * observations per variant Welch's degrees of freedom are small and the difference matters.
 */

const CONVERGED = 1e-15;
/** Keeps Lentz's continued-fraction evaluation away from division by zero. */
const TINY = 1e-300;
const MAX_ITERATIONS = 10_000;
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; about 15 significant digits). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const shifted = x - 1;
  let series = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) series += LANCZOS[i]! / (shifted + i);
  const t = shifted + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (shifted + 0.5) * Math.log(t) - t + Math.log(series);
}

/** P(a, x) by its power series; converges fast for x < a + 1. */
function lowerGammaSeries(a: number, x: number): number {
  let term = 1 / a;
  let sum = term;
  for (let n = 1; n < MAX_ITERATIONS && Math.abs(term) > Math.abs(sum) * CONVERGED; n++) {
    term *= x / (a + n);
    sum += term;
  }
  return sum * Math.exp(a * Math.log(x) - x - logGamma(a));
}

/** Q(a, x) by its continued fraction (modified Lentz); converges fast for x ≥ a + 1. */
function upperGammaFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let fraction = d;
  for (let i = 1; i < MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    fraction *= delta;
    if (Math.abs(delta - 1) < CONVERGED) break;
  }
  return fraction * Math.exp(a * Math.log(x) - x - logGamma(a));
}

/** The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a). */
function regularizedGammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  return x < a + 1 ? 1 - lowerGammaSeries(a, x) : upperGammaFraction(a, x);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let fraction = d;
  for (let m = 1; m < MAX_ITERATIONS; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + even / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    fraction *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + odd / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    fraction *= delta;
    if (Math.abs(delta - 1) < CONVERGED) break;
  }
  return fraction;
}

/** The regularized incomplete beta function I_x(a, b). */
function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The fraction converges quickly only on this side of the mean; use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) on the other.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(Z ≤ z) for a standard normal Z, through erfc(|z|/√2) = Q(1/2, z²/2). */
export function normalCdf(z: number): number {
  const upperTail = 0.5 * regularizedGammaQ(0.5, (z * z) / 2);
  return z >= 0 ? 1 - upperTail : upperTail;
}

/** P(T ≤ t) for Student's t with `df` > 0 degrees of freedom (any real df; Infinity is the normal). */
export function studentTCdf(t: number, df: number): number {
  if (df === Infinity) return normalCdf(t);
  const upperTail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - upperTail : upperTail;
}

/** The t with P(T ≤ t) = p, by bisection on the CDF (monotone, so it always converges). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`a quantile needs 0 < p < 1, got ${p}`);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const mid = (low + high) / 2;
    if (studentTCdf(mid, df) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** P(X ≥ x) for a chi-square X with `df` degrees of freedom. */
export const chiSquareSurvival = (x: number, df: number): number => regularizedGammaQ(df / 2, x / 2);

const CONFIDENCE_LEVEL = 0.95;
const Z_CRITICAL = studentTQuantile(1 - (1 - CONFIDENCE_LEVEL) / 2, Infinity);

export interface Interval {
  lower: number;
  upper: number;
}

export const COMPARISON_TESTS = ['two-proportion z-test', "Welch's t-test"] as const;

/** A treatment compared with the control: treatment − control, with its 95% interval and two-sided p-value. */
export interface Comparison {
  test: (typeof COMPARISON_TESTS)[number];
  control: number;
  treatment: number;
  difference: number;
  confidenceInterval: Interval;
  /** difference / control; null when the control is 0. */
  relativeDifference: number | null;
  /** The relative difference's interval by the delta method; null when the control is 0. */
  relativeConfidenceInterval: Interval | null;
  /** z or t; null when both samples are constant and differ (there is no spread to scale the difference by). */
  statistic: number | null;
  /** Welch–Satterthwaite degrees of freedom; null for the z-test. */
  degreesOfFreedom: number | null;
  pValue: number;
}

const around = (centre: number, halfWidth: number): Interval => ({ lower: centre - halfWidth, upper: centre + halfWidth });

/**
 * The relative difference t/c − 1 and its interval, by the delta method:
 * Var(t/c) ≈ Var(t)/c² + t²·Var(c)/c⁴, with the variances of the two estimates.
 */
function relative(control: number, treatment: number, controlVariance: number, treatmentVariance: number, critical: number) {
  if (control === 0) return { relativeDifference: null, relativeConfidenceInterval: null };
  const ratio = treatment / control;
  const se = Math.sqrt(treatmentVariance / control ** 2 + (treatment ** 2 * controlVariance) / control ** 4);
  return { relativeDifference: ratio - 1, relativeConfidenceInterval: around(ratio - 1, critical * se) };
}

export interface Proportion {
  successes: number;
  trials: number;
}

/**
 * Two-proportion z-test: the statistic uses the pooled proportion (the null hypothesis says they are
 * equal), the interval the unpooled standard error. Null when either side has no trials.
 */
export function twoProportionTest(control: Proportion, treatment: Proportion): Comparison | null {
  if (control.trials === 0 || treatment.trials === 0) return null;
  const pc = control.successes / control.trials;
  const pt = treatment.successes / treatment.trials;
  const pooled = (control.successes + treatment.successes) / (control.trials + treatment.trials);
  const pooledSe = Math.sqrt(pooled * (1 - pooled) * (1 / control.trials + 1 / treatment.trials));
  const controlVariance = (pc * (1 - pc)) / control.trials;
  const treatmentVariance = (pt * (1 - pt)) / treatment.trials;
  const difference = pt - pc;
  // Both sides all successes or all failures: identical, nothing to test.
  const z = pooledSe === 0 ? 0 : difference / pooledSe;
  return {
    test: 'two-proportion z-test',
    control: pc,
    treatment: pt,
    difference,
    confidenceInterval: around(difference, Z_CRITICAL * Math.sqrt(controlVariance + treatmentVariance)),
    ...relative(pc, pt, controlVariance, treatmentVariance, Z_CRITICAL),
    statistic: z,
    degreesOfFreedom: null,
    pValue: 2 * normalCdf(-Math.abs(z)),
  };
}

export interface Sample {
  count: number;
  mean: number;
  /** The unbiased sample variance (n − 1 in the denominator). */
  variance: number;
}

export function sampleOf(values: readonly number[]): Sample {
  const count = values.length;
  // Equal values vary not at all, and their mean is their value: the sum's rounding made ten costs of
  // $0.01 average 0.009999999999999998 and thirty 0.010000000000000004 (equal samples then "differed"),
  // and left a variance of about 1e-35, which gave a t statistic of 5e15.
  const constant = values.every((v) => v === values[0]);
  const mean = constant && count > 0 ? values[0]! : values.reduce((sum, v) => sum + v, 0) / count;
  const variance = count < 2 || constant ? 0 : values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (count - 1);
  return { count, mean, variance };
}

/**
 * Welch's unequal-variances t-test with Welch–Satterthwaite degrees of freedom; the interval uses the
 * t quantile at those degrees of freedom. Null when either side has fewer than two observations.
 */
export function welchTest(control: Sample, treatment: Sample): Comparison | null {
  if (control.count < 2 || treatment.count < 2) return null;
  const controlVariance = control.variance / control.count;
  const treatmentVariance = treatment.variance / treatment.count;
  const se = Math.sqrt(controlVariance + treatmentVariance);
  const difference = treatment.mean - control.mean;
  const base = { test: "Welch's t-test" as const, control: control.mean, treatment: treatment.mean, difference };
  if (se === 0) {
    // Both sides constant: equal means are identical, different ones differ beyond any doubt.
    const identical = difference === 0;
    return {
      ...base,
      confidenceInterval: around(difference, 0),
      ...relative(control.mean, treatment.mean, 0, 0, 0),
      statistic: identical ? 0 : null,
      degreesOfFreedom: null,
      pValue: identical ? 1 : 0,
    };
  }
  const df = (controlVariance + treatmentVariance) ** 2 / (controlVariance ** 2 / (control.count - 1) + treatmentVariance ** 2 / (treatment.count - 1));
  const t = difference / se;
  const critical = studentTQuantile(1 - (1 - CONFIDENCE_LEVEL) / 2, df);
  return {
    ...base,
    confidenceInterval: around(difference, critical * se),
    ...relative(control.mean, treatment.mean, controlVariance, treatmentVariance, critical),
    statistic: t,
    degreesOfFreedom: df,
    pValue: 2 * studentTCdf(-Math.abs(t), df),
  };
}

export interface GoodnessOfFit {
  statistic: number;
  degreesOfFreedom: number;
  pValue: number;
}

/** Every expected count must reach this for the chi-square approximation to hold. */
const MIN_EXPECTED_COUNT = 5;

/**
 * Pearson's chi-square goodness of fit of observed counts against expected shares (summing to 1).
 * Null when some expected count is below 5, where the test is not valid.
 */
export function chiSquareGoodnessOfFit(observed: readonly number[], expectedShares: readonly number[]): GoodnessOfFit | null {
  const total = observed.reduce((sum, n) => sum + n, 0);
  const expected = expectedShares.map((share) => share * total);
  if (expected.some((e) => e < MIN_EXPECTED_COUNT)) return null;
  const statistic = observed.reduce((sum, n, i) => sum + (n - expected[i]!) ** 2 / expected[i]!, 0);
  const degreesOfFreedom = observed.length - 1;
  return { statistic, degreesOfFreedom, pValue: chiSquareSurvival(statistic, degreesOfFreedom) };
}
