import type { CanonicalSpan } from '#shared/domain/spans/model.ts';
import type { StoredSpan } from '#shared/domain/spans/summary.ts';

/** A span as ingestion maps it: an ok `other` span of 1 s with every optional field empty, and what the test sets. */
export const canonicalSpan = (over: Partial<CanonicalSpan> & Pick<CanonicalSpan, 'traceId' | 'spanId'>): CanonicalSpan => ({
  parentSpanId: null,
  name: over.spanId,
  kind: 'other',
  agentName: 'support-bot',
  agentNameFromService: false,
  startTimeMs: 1000,
  endTimeMs: 2000,
  status: 'ok',
  statusMessage: null,
  errorType: null,
  model: null,
  provider: null,
  operation: null,
  inputTokens: null,
  outputTokens: null,
  cachedInputTokens: null,
  reasoningTokens: null,
  cost: null,
  input: null,
  output: null,
  toolName: null,
  sessionId: null,
  userId: null,
  experimentId: null,
  variant: null,
  tags: [],
  metadata: {},
  attributes: {},
  events: [],
  ...over,
});

/** A stored span as ingestion leaves it: a canonical span of agent `agt_1`, its duration 1 s, its cost not estimated. */
export const storedSpan = (over: Partial<StoredSpan> & Pick<StoredSpan, 'traceId' | 'spanId'>): StoredSpan => ({
  ...canonicalSpan(over),
  agentId: 'agt_1',
  durationMs: 1000,
  costEstimated: false,
  ...over,
});

/** Text of the 32 KB a span's input or output keeps whole, with quotes that JSON escapes. */
export const keptWholeText = (label: string, i: number) => `${label} ${i} "quoted" ${'x'.repeat(32 * 1024)}`.slice(0, 32 * 1024);

/**
 * Native spans of a trace too large for one answer of the API: a root and `count` - 1 model calls
 * under it (`call-000`, …), each with an input and an output of the 32 KB kept whole.
 */
export function largeNativeTrace(traceId: string, count: number, at: number) {
  const root = { traceId, spanId: 'root', name: 'long research run', kind: 'agent', agentName: 'researcher', startTime: at, endTime: at + 600_000 };
  const calls = Array.from({ length: count - 1 }, (_, i) => ({
    traceId,
    spanId: `call-${String(i).padStart(3, '0')}`,
    parentSpanId: 'root',
    name: `step ${i}`,
    kind: 'llm',
    startTime: at + 1000 + i * 1000,
    endTime: at + 1500 + i * 1000,
    input: keptWholeText('prompt', i),
    output: keptWholeText('answer', i),
  }));
  return [root, ...calls];
}
