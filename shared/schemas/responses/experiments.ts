import * as z from 'zod';
import { EXPERIMENT_STATUSES } from '../../domain/experiments/lifecycle.ts';
import { VERDICT_OUTCOMES } from '../../domain/experiments/results.ts';
import { COMPARISON_TESTS } from '../../domain/experiments/statistics.ts';
import { count, fraction, isoDateTime, jsonObject } from './common.ts';

export const experiment = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  agentId: z.string().nullable(),
  /** The first variant is the control. */
  variants: z.array(z.strictObject({ key: z.string(), weight: z.number().positive().max(100), config: jsonObject })),
  /** `successRate`, `latency`, `cost` or a signal name. */
  primaryMetric: z.string(),
  trafficPercentage: z.number().min(0).max(100),
  status: z.enum(EXPERIMENT_STATUSES),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  /** When it first started running. */
  startedAt: isoDateTime.nullable(),
  stoppedAt: isoDateTime.nullable(),
});

/** The subject's variant; null outside the traffic percentage. */
export const assignment = z.strictObject({
  experimentId: z.string(),
  subjectId: z.string(),
  variant: z.string().nullable(),
  config: jsonObject.nullable(),
});

const interval = z.strictObject({ lower: z.number(), upper: z.number() });

/** A treatment against the control (treatment − control) at 95%; null when either side has too little data. */
const comparison = z
  .strictObject({
    test: z.enum(COMPARISON_TESTS),
    control: z.number(),
    treatment: z.number(),
    difference: z.number(),
    confidenceInterval: interval,
    /** null when the control is 0. */
    relativeDifference: z.number().nullable(),
    relativeConfidenceInterval: interval.nullable(),
    /** z or t; null when both samples are constant and differ. */
    statistic: z.number().nullable(),
    /** Welch–Satterthwaite; null for the z-test. */
    degreesOfFreedom: z.number().nullable(),
    pValue: fraction,
    significant: z.boolean(),
  })
  .nullable();

export const experimentResults = z.strictObject({
  experimentId: z.string(),
  status: z.enum(EXPERIMENT_STATUSES),
  primaryMetric: z.string(),
  /** The key of the control variant. */
  control: z.string(),
  traces: z.strictObject({
    finished: count,
    unfinished: count,
    /** Tagged with a variant key the experiment does not have. */
    unknownVariant: count,
  }),
  variants: z.array(
    z.strictObject({
      key: z.string(),
      weight: z.number(),
      traces: count,
      successRate: fraction.nullable(),
      latencyMs: z.strictObject({ avg: z.number().nullable(), p50: z.number().nullable(), p95: z.number().nullable() }),
      avgTokens: z.number().nullable(),
      avgCost: z.number().nullable(),
      /** Per signal name. */
      signals: z.record(z.string(), z.strictObject({ count, avg: z.number().nullable() })),
    }),
  ),
  comparisons: z.array(
    z.strictObject({
      variant: z.string(),
      successRate: comparison,
      latency: comparison,
      tokens: comparison,
      cost: comparison,
      /** Per signal name. */
      signals: z.record(z.string(), comparison),
    }),
  ),
  sampleRatioMismatch: z.strictObject({
    checked: z.boolean(),
    chiSquare: z.number().nullable(),
    degreesOfFreedom: z.number().nullable(),
    pValue: fraction.nullable(),
    mismatch: z.boolean(),
  }),
  verdict: z.strictObject({ outcome: z.enum(VERDICT_OUTCOMES), message: z.string() }),
});
