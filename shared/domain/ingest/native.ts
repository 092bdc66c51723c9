import * as z from 'zod/mini';
import { logBody } from '../../schemas/logs.ts';
import { signalBody } from '../../schemas/signals.ts';
import { nativeSpan } from '../../schemas/spans.ts';
import '../../schemas/messages.ts';
import type { AttributeValue, CanonicalLog, CanonicalSignal, CanonicalSpan } from '../spans/model.ts';

export interface ItemError {
  index: number;
  message: string;
}

export interface Parsed<T> {
  items: T[];
  errors: ItemError[];
}

/** Validates each item on its own: the good ones go on, each bad one is reported with its index. */
export function parseEach<S extends z.ZodMiniType, T>(raw: readonly unknown[], schema: S, convert: (v: z.infer<S>) => T): Parsed<T> {
  const items: T[] = [];
  const errors: ItemError[] = [];
  raw.forEach((value, index) => {
    const result = z.safeParse(schema, value);
    if (result.success) {
      items.push(convert(result.data));
      return;
    }
    const message = result.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.map(String).join('.') || 'item'}: ${/received undefined$/.test(i.message) ? 'is required' : i.message}`)
      .join('; ');
    errors.push({ index, message });
  });
  return { items, errors };
}

const asText = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
};

const asAttributes = (value: Record<string, unknown> | undefined) => (value ?? {}) as Record<string, AttributeValue>;

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
    cost: s.cost ?? null,
    input: asText(s.input),
    output: asText(s.output),
    toolName: s.toolName ?? null,
    sessionId: s.sessionId ?? null,
    userId: s.userId ?? null,
    experimentId: s.experimentId ?? null,
    variant: s.variant ?? null,
    attributes: asAttributes(s.attributes),
    events: [],
  };
}

export function signalFromNative(receivedAtMs: number) {
  return (s: z.infer<typeof signalBody>): CanonicalSignal => ({
    signalName: s.signalName,
    value: s.value,
    traceId: s.traceId ?? null,
    spanId: s.spanId ?? null,
    agentName: s.agentName ?? null,
    metadata: asAttributes(s.metadata),
    timestampMs: s.timestamp ?? receivedAtMs,
  });
}

export function logFromNative(l: z.infer<typeof logBody>): CanonicalLog {
  return {
    timestampMs: l.timestamp,
    level: l.level,
    message: l.message,
    traceId: l.traceId ?? null,
    spanId: l.spanId ?? null,
    agentName: l.agentName ?? null,
    attributes: asAttributes(l.attributes),
  };
}

export const parseSpans = (raw: readonly unknown[]) => parseEach(raw, nativeSpan, spanFromNative);
export const parseSignals = (raw: readonly unknown[], receivedAtMs: number) => parseEach(raw, signalBody, signalFromNative(receivedAtMs));
export const parseLogs = (raw: readonly unknown[]) => parseEach(raw, logBody, logFromNative);
