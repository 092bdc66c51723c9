import * as z from 'zod/mini';

const count = (fallback: number) => z._default(z.number().check(z.int(), z.positive()), fallback);
const duration = (fallback: number) => z._default(z.number().check(z.positive()), fallback);

/**
 * The constants of profile learning the spec leaves open, with our defaults. The whole object can be
 * overridden with the `PROFILE_LEARNING` environment variable (JSON), field by field.
 */
export const learningSettings = z.strictObject({
  /** Finished traces an agent needs before its first profile (pre-profile → bootstrap). */
  minTraces: count(50),
  /** Days of history a profile is learned from (hour rollups of this many days, at most 60). */
  windowDays: z._default(z.number().check(z.int(), z.gte(1), z.lte(60)), 14),
  /** Wait after the first bootstrap profile before re-learning; each later wait is `growthFactor` times longer. */
  bootstrapFirstIntervalMinutes: duration(60),
  bootstrapGrowthFactor: z._default(z.number().check(z.gt(1), z.lte(10)), 2),
  /** Consecutive bootstrap cycles without a material change that make the profile converged (→ steady state). */
  convergenceCycles: count(3),
  /** How often a steady-state agent's anchors and drift are checked (and a paused agent looked at again). */
  checkIntervalMinutes: duration(60),
  /** After a re-learn, drift does not cause another one for this long (transient fluctuations). */
  driftCooldownHours: duration(6),
  /** A steady-state profile older than this is re-learned (periodic refresh). */
  refreshDays: duration(7),
  /** Traces whose spans are read per cycle: tools, error types and sessions come from this sample. */
  sampleTraces: z._default(z.number().check(z.int(), z.gte(10), z.lte(1000)), 100),
  /**
   * A cycle measures up to this long before now: a trace counts where it started, once it has finished
   * and arrived, so the most recent minutes are still filling in.
   */
  measurementDelayMinutes: z._default(z.number().check(z.gte(0), z.lte(60)), 5),
  /** Fewer traces than this in a cycle's window leave anchors `unknown`. */
  anchorMinTraces: count(10),
});

export type LearningSettings = z.infer<typeof learningSettings>;

export const DEFAULT_LEARNING_SETTINGS: LearningSettings = learningSettings.parse({});
