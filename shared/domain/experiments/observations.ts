import type { AttributeValue } from '../spans/model.ts';
import type { StoredSignal } from '../spans/ports.ts';
import type { TraceSummary } from '../spans/summary.ts';
import type { Store } from '../store.ts';
import type { SignalObservation } from './ports.ts';

type ObservationStore = Pick<Store, 'experiments' | 'traces' | 'signals'>;

interface Tag {
  experimentId: string;
  variant: string;
}

const tagOfTrace = (s: TraceSummary): Tag | null => (s.experimentId && s.variant ? { experimentId: s.experimentId, variant: s.variant } : null);

/** A signal can name its experiment itself: metadata `experimentId` + `variant`, or the OTLP-style `experiment.id` + `experiment.variant`. */
function tagOfMetadata(metadata: Record<string, AttributeValue>): Tag | null {
  const experimentId = metadata['experimentId'] ?? metadata['experiment.id'];
  const variant = metadata['variant'] ?? metadata['experiment.variant'];
  return typeof experimentId === 'string' && experimentId && typeof variant === 'string' && variant ? { experimentId, variant } : null;
}

/**
 * Called by the ingest worker once a message's spans and signals are stored: indexes what is tagged
 * with an experiment under that experiment, so its results read one partition.
 *
 * A trace counts for the experiment and variant its summary names. A signal counts for the ones its
 * metadata names, else for its trace's. Signal and trace may arrive in either order, so both sides
 * look for the other: a signal looks up its trace's summary, and a finished tagged trace picks up the
 * signals stored before it. Tags naming no experiment of the tenant are ignored.
 */
export async function recordExperimentObservations(
  tenantId: string,
  traces: ReadonlyArray<{ summary: TraceSummary; revision: number }>,
  signals: readonly StoredSignal[],
  expiresAt: number,
  store: ObservationStore,
): Promise<void> {
  // With the time its signals are compared with the experiment's stop: the trace's start.
  const traceTags = new Map<string, Tag & { timeMs: number }>();
  const noteTag = (summary: TraceSummary) => {
    const tag = tagOfTrace(summary);
    if (tag) traceTags.set(summary.traceId, { ...tag, timeMs: summary.startTimeMs });
  };
  for (const { summary } of traces) noteTag(summary);
  const traceIdsToLookUp = new Set(signals.filter((s) => s.traceId && !tagOfMetadata(s.metadata) && !traceTags.has(s.traceId)).map((s) => s.traceId!));
  for (const traceId of traceIdsToLookUp) {
    const summary = await store.traces.getSummary(tenantId, traceId);
    if (summary) noteTag(summary);
  }
  const finishedTagged = traces.filter((t) => t.summary.complete && traceTags.has(t.summary.traceId));
  const earlierSignals = (await Promise.all(finishedTagged.map((t) => store.signals.list(tenantId, { traceId: t.summary.traceId })))).flat();

  const signalObservations = new Map<string, SignalObservation & Tag>();
  for (const signal of [...signals, ...earlierSignals]) {
    const ownTag = tagOfMetadata(signal.metadata);
    const counted = ownTag ? { ...ownTag, timeMs: signal.timestampMs } : signal.traceId ? traceTags.get(signal.traceId) : undefined;
    if (counted) {
      const { signalName, value, agentId } = signal;
      signalObservations.set(signal.id, { ...counted, signalId: signal.id, traceId: signal.traceId, signalName, value, agentId });
    }
  }

  const experimentIds = new Set([...traceTags.values(), ...signalObservations.values()].map((t) => t.experimentId));
  const known = new Set<string>();
  for (const id of experimentIds) if (await store.experiments.get(tenantId, id)) known.add(id);

  for (const { summary, revision } of traces) {
    const tag = tagOfTrace(summary);
    if (!tag || !known.has(tag.experimentId)) continue;
    const { traceId, agentId, startTimeMs, status, durationMs, totalTokens, cost, complete, spanCount } = summary;
    await store.experiments.putTraceObservation(
      tenantId,
      tag.experimentId,
      { traceId, variant: tag.variant, agentId, startTimeMs, status, durationMs, totalTokens, cost, complete, revision, spanCount },
      expiresAt,
    );
  }
  const knownSignals = [...signalObservations.values()].filter((o) => known.has(o.experimentId));
  if (knownSignals.length > 0) await store.experiments.putSignalObservations(tenantId, knownSignals, expiresAt);
}
