/**
 * OTLP spans → canonical spans and signals. The fields come from span-fields.ts, the one mapping of
 * every dialect; here are the span's identity, times, status, events and agent. Invalid spans are
 * refused one by one.
 */
import {
  type Arrival,
  arrivalKeyOf,
  type CanonicalSignal,
  type CanonicalSpan,
  effectiveAgentName,
  isStorableNumber,
  type SpanEvent,
  type SpanStatus,
} from '../spans/model.ts';
import { AttributeReader, type Attributes, firstString } from './attributes.ts';
import {
  AGENT_NAME_ATTRIBUTE,
  inheritedAttributes,
  isAbsentId,
  isSpanId,
  isTraceId,
  nanosToMs,
  type RejectionSummary,
  Rejections,
  timeMsOrNull,
} from './common.ts';
import type { OtlpScope, OtlpSpan, OtlpSpanEvent, OtlpTraceRequest } from './decode.ts';
import { mapSpanFields } from './span-fields.ts';

export interface MappedTraces {
  spans: CanonicalSpan[];
  signals: CanonicalSignal[];
  rejected: RejectionSummary;
}

/** The resource-level facts each span of a ResourceSpans/ScopeSpans shares. */
interface SpanOrigin {
  resourceAttributes: Attributes;
  inheritedAttributes: Attributes;
  /** The instrumentation scope: the library that made the span. */
  scope: OtlpScope;
}

/** Every name a span offers for its agent, strongest first (see `resolveAgentNames`). */
interface AgentNames {
  /** The span's own `gen_ai.agent.name`. */
  explicit: string | null;
  /** The resource's `gen_ai.agent.name`. */
  resource: string | null;
  /** The framework's agent or workflow name (`ai.telemetry.functionId`, …). */
  framework: string | null;
  /** The resource's `service.name`, unless it is the SDK's `unknown_service…` default. */
  service: string | null;
}

export function mapTraceRequest(request: OtlpTraceRequest, arrival: Arrival): MappedTraces {
  const spans: CanonicalSpan[] = [];
  const signals: CanonicalSignal[] = [];
  const rejections = new Rejections('span');
  const namesBySpan = new Map<string, AgentNames>();
  let index = 0;
  for (const { resource, scopeSpans } of request.resourceSpans) {
    for (const { scope, spans: otlpSpans } of scopeSpans) {
      const origin = {
        resourceAttributes: resource.attributes,
        inheritedAttributes: inheritedAttributes(resource.attributes, scope),
        scope,
      };
      for (const otlpSpan of otlpSpans) {
        const problem = spanProblem(otlpSpan);
        if (problem === null) {
          const mapped = mapSpan(otlpSpan, origin, arrival, index);
          spans.push(mapped.span);
          signals.push(...mapped.signals);
          namesBySpan.set(spanKey(mapped.span), mapped.agentNames);
        } else {
          rejections.add(index, problem);
        }
        index += 1;
      }
    }
  }
  resolveAgentNames(spans, namesBySpan);
  if (signals.length > 0) {
    const spansByKey = new Map(spans.map((s) => [spanKey(s), s]));
    for (const signal of signals) signal.agentName = effectiveAgentName(spansByKey.get(spanKey(signal))!);
  }
  return { spans, signals, rejected: rejections.summary() };
}

const spanKey = (s: { traceId: string | null; spanId: string | null }) => `${s.traceId}/${s.spanId}`;

/**
 * The agent of each span: `gen_ai.agent.name` first — the span's own, its nearest ancestor's in the
 * request (instrumentations often name the agent only on its `invoke_agent` span), the resource's —
 * then the framework's name for it, the span's own or its nearest ancestor's, and only then the
 * resource's `service.name`, which speaks for the trace only on its root (`agentNameFromService`).
 */
function resolveAgentNames(spans: CanonicalSpan[], namesBySpan: Map<string, AgentNames>): void {
  const parentKeys = new Map<string, string>();
  for (const span of spans) if (span.parentSpanId) parentKeys.set(spanKey(span), spanKey({ traceId: span.traceId, spanId: span.parentSpanId }));
  const explicitAbove = nearestNames(parentKeys, namesBySpan, (names) => names.explicit);
  const frameworkAbove = nearestNames(parentKeys, namesBySpan, (names) => names.framework);
  for (const span of spans) {
    const key = spanKey(span);
    const names = namesBySpan.get(key)!;
    const parentKey = parentKeys.get(key);
    const name =
      names.explicit ??
      (parentKey === undefined ? null : explicitAbove(parentKey)) ??
      names.resource ??
      names.framework ??
      (parentKey === undefined ? null : frameworkAbove(parentKey));
    span.agentName = name ?? names.service;
    span.agentNameFromService = name === null && names.service !== null;
  }
}

/**
 * For a span of the request, the first name `pick` finds on it or above it. Each span is looked at
 * once (a chain walked is remembered), and a chain of parents that loops ends where it started.
 */
function nearestNames(parentKeys: Map<string, string>, namesBySpan: Map<string, AgentNames>, pick: (names: AgentNames) => string | null) {
  const found = new Map<string, string | null>();
  return (key: string): string | null => {
    const chain = new Set<string>();
    let name: string | null = null;
    for (let current: string | undefined = key; current !== undefined && !chain.has(current); current = parentKeys.get(current)) {
      if (found.has(current)) {
        name = found.get(current)!;
        break;
      }
      chain.add(current);
      const names = namesBySpan.get(current);
      name = names ? pick(names) : null;
      if (name) break;
    }
    for (const walked of chain) found.set(walked, name);
    return name;
  };
}

function spanProblem(span: OtlpSpan): string | null {
  if (!isTraceId(span.traceId)) return 'traceId must be 16 bytes (32 hex characters), not all zero';
  if (!isSpanId(span.spanId)) return 'spanId must be 8 bytes (16 hex characters), not all zero';
  if (!isAbsentId(span.parentSpanId) && !isSpanId(span.parentSpanId)) {
    return 'parentSpanId must be empty or 8 bytes (16 hex characters)';
  }
  if (span.name === '') return 'name is missing';
  const start = BigInt(span.startTimeUnixNano);
  if (start <= 0n) return 'startTimeUnixNano is missing or not positive';
  const end = BigInt(span.endTimeUnixNano);
  if (end !== 0n && end < start) return 'endTimeUnixNano is before startTimeUnixNano';
  return null;
}

const STATUS_BY_CODE: readonly SpanStatus[] = ['unset', 'ok', 'error'];

const EVALUATION_EVENT = 'gen_ai.evaluation.result';
const EXCEPTION_EVENT = 'exception';

/** `position`: the span's in the request, which with an event's tells apart evaluation events sent without a time (`Arrival`). */
function mapSpan(
  span: OtlpSpan,
  origin: SpanOrigin,
  arrival: Arrival,
  position: number,
): { span: CanonicalSpan; signals: CanonicalSignal[]; agentNames: AgentNames } {
  const attributes = new AttributeReader(span.attributes);
  const fields = mapSpanFields(attributes, span, origin.scope);
  const errorType = attributes.string('error.type') ?? exceptionTypeOf(span.events);
  const experimentId = attributes.string('experiment.id');
  const variant = attributes.string('experiment.variant');
  const remainingAttributes = attributes.remaining();

  const signals: CanonicalSignal[] = [];
  const events: SpanEvent[] = [];
  span.events.forEach((event, eventIndex) => {
    if (fields.usedEvents.has(event)) return;
    const signal = event.name === EVALUATION_EVENT ? evaluationSignal(event, span, arrival, `${position}.${eventIndex}`) : null;
    if (signal) signals.push(signal);
    else events.push({ name: event.name, timeMs: eventTimeMs(event, arrival), attributes: event.attributes });
  });

  const serviceName = firstString(origin.resourceAttributes, 'service.name');
  return {
    span: {
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: isAbsentId(span.parentSpanId) ? null : span.parentSpanId,
      name: span.name,
      kind: fields.kind,
      // Resolved once every span of the request is mapped.
      agentName: null,
      agentNameFromService: false,
      startTimeMs: nanosToMs(span.startTimeUnixNano),
      endTimeMs: timeMsOrNull(span.endTimeUnixNano),
      status: fields.status ?? STATUS_BY_CODE[span.status.code] ?? 'unset',
      statusMessage: span.status.message || fields.statusMessage,
      errorType,
      model: fields.model,
      provider: fields.provider,
      operation: fields.operation,
      inputTokens: fields.inputTokens,
      outputTokens: fields.outputTokens,
      cachedInputTokens: fields.cachedInputTokens,
      reasoningTokens: fields.reasoningTokens,
      cost: fields.cost,
      input: fields.input,
      output: fields.output,
      toolName: fields.toolName,
      sessionId: fields.sessionId,
      userId: fields.userId,
      experimentId,
      variant,
      tags: fields.tags,
      metadata: fields.metadata,
      attributes: { ...origin.inheritedAttributes, ...remainingAttributes },
      events,
    },
    signals,
    agentNames: {
      explicit: fields.agentName,
      resource: firstString(origin.resourceAttributes, AGENT_NAME_ATTRIBUTE),
      framework: fields.frameworkAgentName,
      service: serviceName?.startsWith('unknown_service') ? null : serviceName,
    },
  };
}

function exceptionTypeOf(events: OtlpSpanEvent[]): string | null {
  const exception = events.find((event) => event.name === EXCEPTION_EVENT);
  return exception ? firstString(exception.attributes, 'exception.type') : null;
}

/** A `gen_ai.evaluation.result` event with a numeric score; null (kept as a plain event) otherwise. */
function evaluationSignal(event: OtlpSpanEvent, span: OtlpSpan, arrival: Arrival, position: string): CanonicalSignal | null {
  const attributes = new AttributeReader(event.attributes);
  const value = attributes.number('gen_ai.evaluation.score.value');
  // Without a usable score the event stays on the span as an ordinary event.
  if (value === null || !isStorableNumber(value)) return null;
  const signalName = attributes.string('gen_ai.evaluation.name') ?? 'evaluation';
  const label = attributes.string('gen_ai.evaluation.score.label');
  const explanation = attributes.string('gen_ai.evaluation.explanation');
  return {
    signalName,
    value,
    traceId: span.traceId,
    spanId: span.spanId,
    // Resolved with the span's agent.
    agentName: null,
    metadata: {
      ...(label !== null && { label }),
      ...(explanation !== null && { explanation }),
      ...attributes.remaining(),
    },
    timestampMs: eventTimeMs(event, arrival),
    ...(timeMsOrNull(event.timeUnixNano) === null && { arrivalKey: arrivalKeyOf(arrival, position) }),
  };
}

/** An event without a time is placed when the request arrived, as log records without one are. */
const eventTimeMs = (event: OtlpSpanEvent, arrival: Arrival): number => timeMsOrNull(event.timeUnixNano) ?? arrival.atMs;
