import type { TraceAnomaly } from './anomalies.ts';
import { percent } from './format.ts';
import type { LearningState } from './learning.ts';

const MAX_TOOLS = 5;

/**
 * The profile as compact text for an evaluator's prompt: identity, the usual tools, errors and
 * latency, the anchors with their statuses, and the anomalies found on the trace being judged.
 * Null before the first profile (spec: evaluations then run without behavioural context). Takes
 * what `store.profiles.get` and `store.profiles.anomaliesOf` answer.
 */
export function profileContext(
  learning: Pick<LearningState, 'phase' | 'profile' | 'anchors'> | undefined,
  anomalies: readonly TraceAnomaly[] = [],
): string | null {
  if (!learning?.profile) return null;
  const { profile } = learning;
  const { identity, toolPatterns, errorPatterns, volumeCharacteristics: volume, temporalPatterns } = profile;
  const tools = toolPatterns.distribution.slice(0, MAX_TOOLS).map((t) => `${t.tool} (${percent(t.traceRate)} of traces)`);
  const sequence = toolPatterns.commonSequences[0];
  const { p50Ms, p95Ms } = volume.typicalLatency;
  const lines = [
    `Behavioural profile (${learning.phase}, ${identity.maturityLevel} agent, learned ${profile.learnedAt}${profile.editedAt ? `, edited ${profile.editedAt}` : ''}):`,
    `Use case: ${identity.useCase}`,
    `Usual behaviour: ${identity.behaviouralSummary}`,
    `Tools: ${tools.length > 0 ? tools.join(', ') : 'none'}${sequence ? `; usual sequence ${sequence.tools.join(' → ')}` : ''}`,
    `Errors: ${percent(errorPatterns.rate)} of traces (${errorPatterns.trend})${errorPatterns.commonTypes.length > 0 ? `; usual types ${errorPatterns.commonTypes.map((e) => e.type).join(', ')}` : ''}`,
    `Latency: p50 ${p50Ms ?? 'n/a'} ms, p95 ${p95Ms ?? 'n/a'} ms; cost per trace $${volume.costPerTrace}; peak hours (UTC) ${temporalPatterns.peakHours.join(', ') || 'n/a'}`,
    ...learning.anchors.map((a) => `Anchor: ${a.description}: ${a.status}${a.lastValue === null ? '' : ` (last ${a.lastValue})`}`),
    ...anomalies.map((a) => `Anomaly of this trace (${a.type}): ${a.message}`),
  ];
  return lines.join('\n');
}
