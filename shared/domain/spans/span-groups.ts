import { createHash } from 'node:crypto';
import type { StoredSpan } from './summary.ts';

/**
 * One message's spans of one trace: a span group, stored together. Its id derives from its span ids,
 * so a redelivered message writes the same groups again, and a trace's summary can list the groups it
 * was computed from.
 */
export interface SpanGroup {
  traceId: string;
  groupId: string;
  spans: StoredSpan[];
}

/** The span groups of one message's spans: one per trace. */
export function spanGroupsOf(spans: readonly StoredSpan[]): SpanGroup[] {
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  return [...byTrace].map(([traceId, group]) => ({ traceId, groupId: spanGroupId(group), spans: group }));
}

const spanGroupId = (group: readonly StoredSpan[]): string =>
  createHash('sha256')
    .update(
      group
        .map((s) => s.spanId)
        .sort()
        .join('\n'),
    )
    .digest('base64url')
    .slice(0, 22);
