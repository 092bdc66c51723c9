import type { StoredLog, StoredSignal } from './ports.ts';
import type { StoredSpan, TraceSummary } from './summary.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A trace as lists show it; `alertTypes` are the types of the alerts raised on it (marked on its summary). */
export function traceView(t: TraceSummary & { alertTypes?: ReadonlySet<string> }) {
  return {
    traceId: t.traceId,
    agentId: t.agentId,
    agentName: t.agentName,
    name: t.name,
    status: t.status,
    startTime: iso(t.startTimeMs),
    endTime: iso(t.endTimeMs),
    durationMs: t.durationMs,
    spanCount: t.spanCount,
    errorCount: t.errorCount,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    totalTokens: t.totalTokens,
    cost: t.cost,
    model: t.model,
    models: t.models,
    toolNames: t.toolNames ?? [],
    errorTypes: t.errorTypes ?? [],
    tags: t.tags ?? [],
    metadata: t.metadata ?? {},
    alertTypes: [...(t.alertTypes ?? [])].sort(),
    sessionId: t.sessionId,
    userId: t.userId,
    experimentId: t.experimentId,
    variant: t.variant,
    complete: t.complete,
    closedAt: iso(t.closedAtMs ?? null),
  };
}

export function spanView(s: StoredSpan, depth: number) {
  return {
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    depth,
    traceId: s.traceId,
    name: s.name,
    kind: s.kind,
    agentId: s.agentId,
    agentName: s.agentName,
    startTime: iso(s.startTimeMs),
    endTime: iso(s.endTimeMs),
    durationMs: s.durationMs,
    status: s.status,
    statusMessage: s.statusMessage,
    errorType: s.errorType,
    model: s.model,
    provider: s.provider,
    operation: s.operation,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cachedInputTokens: s.cachedInputTokens,
    reasoningTokens: s.reasoningTokens,
    cost: s.cost,
    costEstimated: s.costEstimated,
    input: s.input,
    output: s.output,
    toolName: s.toolName,
    sessionId: s.sessionId,
    userId: s.userId,
    experimentId: s.experimentId,
    variant: s.variant,
    tags: s.tags,
    metadata: s.metadata,
    attributes: s.attributes,
    events: s.events.map((e) => ({ name: e.name, time: iso(e.timeMs), attributes: e.attributes })),
  };
}

/**
 * Depth-first: each parent before its children, siblings by start time; orphans start their own subtree.
 * A span that names no agent of its own is its nearest ancestor's, as at ingestion within one export:
 * an OTel SDK exports a long run's children before their agent's span, and those kept no agent.
 */
export function orderSpans(spans: readonly StoredSpan[]): Array<{ span: StoredSpan; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => a.startTimeMs - b.startTimeMs || a.spanId.localeCompare(b.spanId));
  const children = new Map<string, StoredSpan[]>();
  const tops: StoredSpan[] = [];
  for (const s of byStart) {
    if (s.parentSpanId && ids.has(s.parentSpanId) && s.parentSpanId !== s.spanId) {
      const siblings = children.get(s.parentSpanId);
      if (siblings) siblings.push(s);
      else children.set(s.parentSpanId, [s]);
    } else tops.push(s);
  }
  const out: Array<{ span: StoredSpan; depth: number }> = [];
  const visited = new Set<string>();
  // Depth first with a stack of its own: a chain of thousands of spans nested one in another passed
  // the call stack's depth as recursion.
  const visit = (start: StoredSpan) => {
    const stack: Array<{ s: StoredSpan; depth: number; ancestor: StoredSpan | undefined }> = [{ s: start, depth: 0, ancestor: undefined }];
    while (stack.length > 0) {
      const { s, depth, ancestor } = stack.pop()!;
      if (visited.has(s.spanId)) continue;
      visited.add(s.spanId);
      const span = s.agentName === null && ancestor ? { ...s, agentId: ancestor.agentId, agentName: ancestor.agentName } : s;
      out.push({ span, depth });
      const agentOfChildren = span.agentName === null ? undefined : span;
      const kids = children.get(s.spanId) ?? [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ s: kids[i]!, depth: depth + 1, ancestor: agentOfChildren });
    }
  };
  for (const top of tops) visit(top);
  for (const s of byStart) visit(s); // spans caught in a parent cycle
  return out;
}

export function signalView(s: StoredSignal) {
  return {
    id: s.id,
    signalName: s.signalName,
    value: s.value,
    traceId: s.traceId,
    spanId: s.spanId,
    agentId: s.agentId,
    agentName: s.agentName,
    metadata: s.metadata,
    timestamp: s.timestamp,
  };
}

export function logView(l: StoredLog) {
  return {
    id: l.id,
    timestamp: l.timestamp,
    level: l.level,
    message: l.message,
    eventName: l.eventName ?? null,
    traceId: l.traceId,
    spanId: l.spanId,
    agentId: l.agentId,
    agentName: l.agentName,
    attributes: l.attributes,
  };
}

/** The value at quantile q (0–1) of sorted numbers, by the nearest-rank method. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Per signal name and agent: count, avg, min, max, p50, p95. */
export function summarizeSignals(signals: readonly StoredSignal[]) {
  const groups = new Map<string, { signalName: string; agentId: string | null; agentName: string | null; values: number[] }>();
  for (const s of signals) {
    const key = `${s.signalName}\u0000${s.agentId ?? ''}`;
    const group = groups.get(key) ?? { signalName: s.signalName, agentId: s.agentId, agentName: s.agentName, values: [] };
    group.values.push(s.value);
    groups.set(key, group);
  }
  return [...groups.values()]
    .map(({ values, ...group }) => {
      const sorted = values.sort((a, b) => a - b);
      return {
        ...group,
        count: sorted.length,
        avg: round(sorted.reduce((a, b) => a + b, 0) / sorted.length, 6),
        min: sorted[0]!,
        max: sorted[sorted.length - 1]!,
        p50: quantile(sorted, 0.5),
        p95: quantile(sorted, 0.95),
      };
    })
    .sort((a, b) => a.signalName.localeCompare(b.signalName) || (a.agentName ?? '').localeCompare(b.agentName ?? ''));
}
