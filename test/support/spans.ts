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
