import type * as z from 'zod/mini';
import { nativeSpan } from '../../schemas/spans.ts';
import type { CanonicalSpan } from '../spans/model.ts';
import { asAttributes, parseEach } from './native.ts';

const asText = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

export function spanFromNative(s: z.infer<typeof nativeSpan>): CanonicalSpan {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId ?? null,
    name: s.name,
    kind: s.kind,
    agentName: s.agentName ?? null,
    agentNameFromService: false,
    startTimeMs: s.startTime,
    endTimeMs: s.endTime ?? null,
    status: s.status,
    statusMessage: s.statusMessage ?? null,
    errorType: s.errorType ?? null,
    model: s.model ?? null,
    provider: s.provider ?? null,
    operation: s.operation ?? null,
    inputTokens: s.inputTokens ?? null,
    outputTokens: s.outputTokens ?? null,
    cachedInputTokens: s.cachedInputTokens ?? null,
    reasoningTokens: s.reasoningTokens ?? null,
    cost: s.cost ?? null,
    input: asText(s.input),
    output: asText(s.output),
    toolName: s.toolName ?? null,
    sessionId: s.sessionId ?? null,
    userId: s.userId ?? null,
    experimentId: s.experimentId ?? null,
    variant: s.variant ?? null,
    tags: s.tags ?? [],
    metadata: asAttributes(s.metadata),
    attributes: asAttributes(s.attributes),
    events: [],
  };
}

export const parseSpans = (raw: readonly unknown[]) => parseEach(raw, nativeSpan, spanFromNative);
