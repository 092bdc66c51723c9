import * as z from 'zod/mini';
import { agentId } from '../../schemas/common.ts';
import { storableNumber, storableObject } from '../../schemas/storable.ts';

/** Metrics read from the traces themselves; any other primary metric names a signal. */
const TRACE_METRICS = ['successRate', 'latency', 'cost'] as const;
export type TraceMetric = (typeof TRACE_METRICS)[number];

const MIN_VARIANTS = 2;
const MAX_VARIANTS = 10;
const MAX_CONFIG_BYTES = 16 * 1024;
/** Weights are compared with 100 to this tolerance, so 33.33 + 33.33 + 33.34 passes despite binary rounding. */
const WEIGHT_TOLERANCE = 1e-6;

const variant = z.object({
  key: z.string().check(z.minLength(1), z.maxLength(64), z.regex(/^[\w.:-]+$/, 'must be 1–64 letters, digits or . _ : -')),
  weight: storableNumber(0, 100).check(z.positive()),
  // A prefault (parsed as if sent) rather than a default, which the OpenAPI document leaves out for a schema that transforms.
  config: z.prefault(
    storableObject.check(
      z.refine((config: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(config)) <= MAX_CONFIG_BYTES, 'must be at most 16 KB as JSON'),
    ),
    {},
  ),
});
export type Variant = z.infer<typeof variant>;

export const createExperimentBody = z.object({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  description: z._default(z.string().check(z.maxLength(2000)), ''),
  agentId: z.optional(agentId),
  variants: z.array(variant).check(
    z.minLength(MIN_VARIANTS, `must have ${MIN_VARIANTS} to ${MAX_VARIANTS} variants`),
    z.maxLength(MAX_VARIANTS, `must have ${MIN_VARIANTS} to ${MAX_VARIANTS} variants`),
    z.superRefine((variants: Variant[], ctx) => {
      const keys = variants.map((v) => v.key);
      const repeated = keys.filter((key, i) => keys.indexOf(key) !== i);
      if (repeated.length > 0) ctx.addIssue({ code: 'custom', message: `keys must be unique (${[...new Set(repeated)].join(', ')} repeated)` });
      const total = variants.reduce((sum, v) => sum + v.weight, 0);
      if (Math.abs(total - 100) > WEIGHT_TOLERANCE) ctx.addIssue({ code: 'custom', message: `weights must sum to 100 (they sum to ${total})` });
    }),
  ),
  /** `successRate`, `latency` (mean, lower is better), `cost` (mean per trace, lower is better) or a signal name. */
  primaryMetric: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  trafficPercentage: z._default(storableNumber(0, 100), 100),
});
export type ExperimentDefinition = z.infer<typeof createExperimentBody>;

export const isTraceMetric = (metric: string): metric is TraceMetric => (TRACE_METRICS as readonly string[]).includes(metric);
