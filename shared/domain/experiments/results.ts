import { quantile } from '../spans/views.ts';
import { isTraceMetric, type TraceMetric } from './definition.ts';
import type { ExperimentRecord, SignalObservation, TraceObservation } from './ports.ts';
import { type Comparison, chiSquareGoodnessOfFit, sampleOf, twoProportionTest, welchTest } from './statistics.ts';

/** Below this many observations of the primary metric in some variant, the verdict is "not enough data yet". */
const MIN_OBSERVATIONS_PER_VARIANT = 30;
const SIGNIFICANCE = 0.05;
/** A sample-ratio mismatch is flagged at this p-value: strict, because checking often would otherwise cry wolf. */
const SRM_THRESHOLD = 0.001;

interface VariantData {
  key: string;
  weight: number;
  /** Finished traces (root arrived and ended), the only ones measured. */
  traces: TraceObservation[];
  signals: Map<string, number[]>;
}

const roundTo = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const rounded = (n: number | null, digits = 6) => (n === null ? null : roundTo(n, digits));

const successesOf = (d: VariantData) => ({ successes: d.traces.filter((t) => t.status === 'ok').length, trials: d.traces.length });
const latenciesOf = (d: VariantData) => d.traces.map((t) => t.durationMs).filter((ms): ms is number => ms !== null);
const tokensOf = (d: VariantData) => d.traces.map((t) => t.totalTokens);
const costsOf = (d: VariantData) => d.traces.map((t) => t.cost);

function variantSummary(d: VariantData) {
  const { successes, trials } = successesOf(d);
  const latencies = latenciesOf(d).sort((a, b) => a - b);
  return {
    key: d.key,
    weight: d.weight,
    traces: trials,
    successRate: trials === 0 ? null : roundTo(successes / trials, 6),
    latencyMs: { avg: rounded(mean(latencies), 3), p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) },
    avgTokens: rounded(mean(tokensOf(d)), 3),
    avgCost: rounded(mean(costsOf(d)), 9),
    signals: Object.fromEntries([...d.signals].map(([name, values]) => [name, { count: values.length, avg: rounded(mean(values)) }])),
  };
}

/** A comparison as the API shows it: rounded, with whether it is significant at 95%. */
function comparisonView(c: Comparison | null) {
  if (!c) return null;
  const interval = (i: { lower: number; upper: number } | null) => (i ? { lower: roundTo(i.lower, 6), upper: roundTo(i.upper, 6) } : null);
  return {
    ...c,
    control: roundTo(c.control, 9),
    treatment: roundTo(c.treatment, 9),
    difference: roundTo(c.difference, 9),
    confidenceInterval: interval(c.confidenceInterval),
    relativeDifference: rounded(c.relativeDifference),
    relativeConfidenceInterval: interval(c.relativeConfidenceInterval),
    statistic: rounded(c.statistic),
    degreesOfFreedom: rounded(c.degreesOfFreedom, 3),
    pValue: Number(c.pValue.toPrecision(6)),
    significant: c.pValue < SIGNIFICANCE,
  };
}

const TRACE_TESTS: Record<TraceMetric | 'tokens', (control: VariantData, treatment: VariantData) => Comparison | null> = {
  successRate: (c, t) => twoProportionTest(successesOf(c), successesOf(t)),
  latency: (c, t) => welchTest(sampleOf(latenciesOf(c)), sampleOf(latenciesOf(t))),
  tokens: (c, t) => welchTest(sampleOf(tokensOf(c)), sampleOf(tokensOf(t))),
  cost: (c, t) => welchTest(sampleOf(costsOf(c)), sampleOf(costsOf(t))),
};

const signalTest = (name: string) => (c: VariantData, t: VariantData) => welchTest(sampleOf(c.signals.get(name) ?? []), sampleOf(t.signals.get(name) ?? []));

/** How many observations of the primary metric a variant has (every finished trace has a latency). */
const observationsOf = (d: VariantData, metric: string): number => (isTraceMetric(metric) ? d.traces.length : (d.signals.get(metric)?.length ?? 0));

const formatP = (p: number) => (p < 0.001 ? 'p<0.001' : `p=${p.toFixed(3)}`);

interface Wording {
  label: string;
  up: string;
  down: string;
  amount: (n: number) => string;
  unit: string;
}
const TRACE_METRIC_WORDING: Record<TraceMetric, Wording> = {
  successRate: { label: 'success rate', up: 'improves', down: 'lowers', amount: (n) => (n * 100).toFixed(1), unit: ' points' },
  latency: { label: 'mean latency', up: 'increases', down: 'reduces', amount: (n) => n.toFixed(n < 10 ? 1 : 0), unit: ' ms' },
  cost: { label: 'mean cost per trace', up: 'increases', down: 'reduces', amount: (n) => `$${n.toPrecision(3)}`, unit: '' },
};
const wordingOf = (metric: string): Wording =>
  isTraceMetric(metric)
    ? TRACE_METRIC_WORDING[metric]
    : { label: metric, up: 'raises', down: 'lowers', amount: (n) => String(Number(n.toPrecision(3))), unit: '' };

/** "improves success rate by 4.1 points (95% CI 1.2–7.0, p=0.006)": the metric's unit and direction, the size of the change. */
function describeEffect(metric: string, c: Comparison): string {
  const { label, up, down, amount, unit } = wordingOf(metric);
  const increase = c.difference > 0;
  // A decrease is described by its size: the interval of −difference, whose bounds are then both positive.
  const [low, high] = increase ? [c.confidenceInterval.lower, c.confidenceInterval.upper] : [-c.confidenceInterval.upper, -c.confidenceInterval.lower];
  return `${increase ? up : down} ${label} by ${amount(Math.abs(c.difference))}${unit} (95% CI ${amount(low)}–${amount(high)}, ${formatP(c.pValue)})`;
}

export const VERDICT_OUTCOMES = ['sample_ratio_mismatch', 'insufficient_data', 'significant', 'no_significant_difference'] as const;
type Verdict = { outcome: (typeof VERDICT_OUTCOMES)[number]; message: string };

function verdictOf(
  experiment: ExperimentRecord,
  data: readonly VariantData[],
  primary: ReadonlyArray<{ variant: string; comparison: Comparison | null }>,
  srm: ReturnType<typeof sampleRatioCheck>,
): Verdict {
  const metric = experiment.primaryMetric;
  if (srm.mismatch) {
    const split = data.map((d) => `${d.key} ${d.traces.length}`).join(' / ');
    const weights = data.map((d) => d.weight).join('/');
    return {
      outcome: 'sample_ratio_mismatch',
      message: `Sample ratio mismatch: traces split ${split} against weights ${weights} (${formatP(srm.pValue!)}); assignment or tagging is skewed, so the comparison cannot be trusted`,
    };
  }
  const counts = data.map((d) => ({ key: d.key, n: observationsOf(d, metric) }));
  if (counts.some((c) => c.n < MIN_OBSERVATIONS_PER_VARIANT)) {
    const unit = isTraceMetric(metric) ? 'finished traces' : `${metric} signals`;
    return {
      outcome: 'insufficient_data',
      message: `Not enough data yet: each variant needs at least ${MIN_OBSERVATIONS_PER_VARIANT} ${unit} (${counts.map((c) => `${c.key} has ${c.n}`).join(', ')})`,
    };
  }
  const significant = primary.filter((p) => p.comparison && p.comparison.pValue < SIGNIFICANCE);
  if (significant.length > 0) {
    return { outcome: 'significant', message: significant.map((p) => `Variant ${p.variant} ${describeEffect(metric, p.comparison!)}`).join('; ') };
  }
  const control = data[0]!.key;
  const p = primary.length === 1 && primary[0]!.comparison ? ` (${formatP(primary[0]!.comparison.pValue)})` : '';
  const others = primary.map((x) => x.variant).join(', ');
  return {
    outcome: 'no_significant_difference',
    message: `No significant difference in ${wordingOf(metric).label} between ${others} and control ${control}${p}`,
  };
}

/** Chi-square goodness of fit of the finished traces per variant against the weights. */
function sampleRatioCheck(data: readonly VariantData[]) {
  const fit = chiSquareGoodnessOfFit(
    data.map((d) => d.traces.length),
    data.map((d) => d.weight / 100),
  );
  return {
    checked: fit !== null,
    chiSquare: fit && roundTo(fit.statistic, 6),
    degreesOfFreedom: fit?.degreesOfFreedom ?? null,
    pValue: fit && Number(fit.pValue.toPrecision(6)),
    mismatch: fit !== null && fit.pValue < SRM_THRESHOLD,
  };
}

/**
 * Whether an observation counts: not when it belongs to an agent other than the experiment's, or to a
 * deleted agent; nor when the experiment stopped before it (a trace started after the stop, or a
 * signal counted through such a trace). An observation naming no agent counts.
 */
function countsFor(experiment: ExperimentRecord, deletedAgentIds: ReadonlySet<string>) {
  const stoppedAtMs = experiment.stoppedAt === null ? Infinity : Date.parse(experiment.stoppedAt);
  return (agentId: string | null | undefined, timeMs: number | undefined) =>
    (timeMs ?? -Infinity) <= stoppedAtMs &&
    (agentId == null || ((experiment.agentId === null || agentId === experiment.agentId) && !deletedAgentIds.has(agentId)));
}

/**
 * An experiment's results from the traces and signals tagged with it: per variant the measures, each
 * treatment against the control (the first variant), the sample-ratio check and a verdict on the primary metric.
 */
export function experimentResults(
  experiment: ExperimentRecord,
  observations: { traces: readonly TraceObservation[]; signals: readonly SignalObservation[] },
  deletedAgentIds: ReadonlySet<string> = new Set(),
) {
  const data: VariantData[] = experiment.variants.map((v) => ({ key: v.key, weight: v.weight, traces: [], signals: new Map() }));
  const byKey = new Map(data.map((d) => [d.key, d]));
  const counts = countsFor(experiment, deletedAgentIds);
  let unfinished = 0;
  let unknownVariant = 0;
  for (const trace of observations.traces.filter((t) => counts(t.agentId, t.startTimeMs))) {
    const variant = byKey.get(trace.variant);
    if (!variant) unknownVariant += 1;
    else if (!trace.complete) unfinished += 1;
    else variant.traces.push(trace);
  }
  for (const signal of observations.signals.filter((o) => counts(o.agentId, o.timeMs))) {
    const variant = byKey.get(signal.variant);
    if (variant) variant.signals.set(signal.signalName, [...(variant.signals.get(signal.signalName) ?? []), signal.value]);
  }

  const [control, ...treatments] = data as [VariantData, ...VariantData[]];
  const metric = experiment.primaryMetric;
  const signalNames = [...new Set([...data.flatMap((d) => [...d.signals.keys()]), ...(isTraceMetric(metric) ? [] : [metric])])].sort();
  const compared = treatments.map((t) => ({
    variant: t.key,
    successRate: TRACE_TESTS.successRate(control, t),
    latency: TRACE_TESTS.latency(control, t),
    tokens: TRACE_TESTS.tokens(control, t),
    cost: TRACE_TESTS.cost(control, t),
    signals: Object.fromEntries(signalNames.map((name) => [name, signalTest(name)(control, t)])),
  }));
  const primary = compared.map((c) => ({ variant: c.variant, comparison: isTraceMetric(metric) ? c[metric] : c.signals[metric]! }));
  const srm = sampleRatioCheck(data);

  return {
    experimentId: experiment.id,
    status: experiment.status,
    primaryMetric: experiment.primaryMetric,
    control: control.key,
    traces: {
      finished: data.reduce((sum, d) => sum + d.traces.length, 0),
      unfinished,
      /** Tagged with a variant key the experiment does not have. */
      unknownVariant,
    },
    variants: data.map(variantSummary),
    comparisons: compared.map((c) => ({
      variant: c.variant,
      successRate: comparisonView(c.successRate),
      latency: comparisonView(c.latency),
      tokens: comparisonView(c.tokens),
      cost: comparisonView(c.cost),
      signals: Object.fromEntries(Object.entries(c.signals).map(([name, comparison]) => [name, comparisonView(comparison)])),
    })),
    sampleRatioMismatch: srm,
    verdict: verdictOf(experiment, data, primary, srm),
  };
}
