import { createHash } from 'node:crypto';
import type { Variant } from './definition.ts';

/** Bits of the hash used: 48 bits read exactly into a double, far finer than any weight. */
const HASH_BYTES = 6;

/** A point in [0, 1) from SHA-256 of the text: the same on every machine, process and runtime version. */
function unitInterval(text: string): number {
  return createHash('sha256').update(text).digest().readUIntBE(0, HASH_BYTES) / 2 ** (8 * HASH_BYTES);
}

export interface AssignableExperiment {
  id: string;
  variants: readonly Variant[];
  trafficPercentage: number;
}

/**
 * The subject's variant, or null when the subject falls outside the experiment's traffic. Two
 * independent hashes (differently salted): one decides whether the subject takes part, so widening
 * the traffic only adds subjects and never moves one; the other is mapped over the cumulative
 * weights, so the split among participants follows the weights whatever the traffic percentage.
 * Experiment ids contain no `:`, so the hashed text is unambiguous.
 */
export function assignVariant(experiment: AssignableExperiment, subjectId: string): Variant | null {
  if (unitInterval(`traffic:${experiment.id}:${subjectId}`) * 100 >= experiment.trafficPercentage) return null;
  const point = unitInterval(`variant:${experiment.id}:${subjectId}`) * 100;
  let cumulative = 0;
  for (const variant of experiment.variants) {
    cumulative += variant.weight;
    if (point < cumulative) return variant;
  }
  // Weights sum to 100 only to within rounding; a point in that last sliver belongs to the last variant.
  return experiment.variants.at(-1)!;
}
