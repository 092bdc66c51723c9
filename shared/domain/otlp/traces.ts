/**
 * OTLP spans → canonical spans and signals, following the OpenTelemetry GenAI semantic conventions
 * (and the legacy names instrumentations still send). Invalid spans are refused one by one.
 */
import { effectiveAgentName, isStorableNumber, type CanonicalSignal, type CanonicalSpan, type SpanEvent, type SpanKind, type SpanStatus } from '../spans/model.ts';
import { AttributeReader, type Attributes, firstString } from './attributes.ts';
import {
  AGENT_NAME_ATTRIBUTE,
  agentNameOf,
  inheritedAttributes,
  isAbsentId,
  isSpanId,
  isTraceId,
  nanosToMs,
  type RejectionSummary,
  Rejections,
  timeMsOrNull,
} from './common.ts';
import type { OtlpSpan, OtlpSpanEvent, OtlpTraceRequest } from './decode.ts';

export interface MappedTraces {
  spans: CanonicalSpan[];
  signals: CanonicalSignal[];
  rejected: RejectionSummary;
}

/** The resource-level facts each span of a ResourceSpans/ScopeSpans shares. */
interface SpanOrigin {
  resourceAttributes: Attributes;
  inheritedAttributes: Attributes;
}

export function mapTraceRequest(request: OtlpTraceRequest, receivedAtMs: number): MappedTraces {
  const spans: CanonicalSpan[] = [];
  const signals: CanonicalSignal[] = [];
  const rejections = new Rejections('span');
  const namedBySpan = new Map<string, string>();
  let index = 0;
  for (const { resource, scopeSpans } of request.resourceSpans) {
    for (const { scope, spans: otlpSpans } of scopeSpans) {
      const origin = { resourceAttributes: resource.attributes, inheritedAttributes: inheritedAttributes(resource.attributes, scope) };
      for (const otlpSpan of otlpSpans) {
        const problem = spanProblem(otlpSpan);
        if (problem === null) {
          const mapped = mapSpan(otlpSpan, origin, receivedAtMs);
          spans.push(mapped.span);
          signals.push(...mapped.signals);
          if (mapped.ownAgentName) namedBySpan.set(spanKey(mapped.span), mapped.ownAgentName);
        } else {
          rejections.add(index, problem);
        }
        index += 1;
      }
    }
  }
  inheritAgentNames(spans, signals, namedBySpan);
  return { spans, signals, rejected: rejections.summary() };
}

const spanKey = (s: { traceId: string | null; spanId: string | null }) => `${s.traceId}/${s.spanId}`;

/**
 * Instrumentations often name the agent only on its `invoke_agent` span; the LLM and tool spans below
 * it would otherwise fall back to the resource's service name and conjure a second agent. A span that
 * does not name an agent itself takes the name of its nearest ancestor in the request that does.
 */
function inheritAgentNames(spans: CanonicalSpan[], signals: CanonicalSignal[], namedBySpan: Map<string, string>): void {
  if (namedBySpan.size === 0) return;
  const byKey = new Map(spans.map((s) => [spanKey(s), s]));
  const inherited = new Map<string, string>();
  for (const span of spans) {
    if (namedBySpan.has(spanKey(span))) continue;
    const seen = new Set<string>();
    for (let parent = span.parentSpanId; parent && !seen.has(parent); parent = byKey.get(spanKey({ traceId: span.traceId, spanId: parent }))?.parentSpanId ?? null) {
      seen.add(parent);
      const name = namedBySpan.get(spanKey({ traceId: span.traceId, spanId: parent }));
      if (name) {
        span.agentName = name;
        span.agentNameFromService = false;
        inherited.set(spanKey(span), name);
        break;
      }
    }
  }
  for (const signal of signals) signal.agentName = inherited.get(spanKey(signal)) ?? signal.agentName;
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

const KIND_BY_OPERATION = new Map<string, SpanKind>([
  ['chat', 'llm'],
  ['text_completion', 'llm'],
  ['generate_content', 'llm'],
  ['execute_tool', 'tool'],
  ['invoke_agent', 'agent'],
  ['create_agent', 'agent'],
  ['invoke_workflow', 'chain'],
  ['embeddings', 'embedding'],
]);
const RETRIEVAL_OPERATION = /retriev|search/i;

const STATUS_BY_CODE: readonly SpanStatus[] = ['unset', 'ok', 'error'];

const ROLE_BY_MESSAGE_EVENT = new Map([
  ['gen_ai.system.message', 'system'],
  ['gen_ai.user.message', 'user'],
  ['gen_ai.assistant.message', 'assistant'],
  ['gen_ai.tool.message', 'tool'],
]);
const CHOICE_EVENT = 'gen_ai.choice';
const EVALUATION_EVENT = 'gen_ai.evaluation.result';
const EXCEPTION_EVENT = 'exception';

function mapSpan(
  span: OtlpSpan,
  origin: SpanOrigin,
  receivedAtMs: number,
): { span: CanonicalSpan; signals: CanonicalSignal[]; ownAgentName: string | null } {
  const attributes = new AttributeReader(span.attributes);
  const ownAgentName = attributes.string(AGENT_NAME_ATTRIBUTE);
  const agentName = agentNameOf(attributes, origin.resourceAttributes);
  const agentNameFromService =
    agentName !== null && ownAgentName === null && firstString(origin.resourceAttributes, AGENT_NAME_ATTRIBUTE) === null;
  const parentSpanId = isAbsentId(span.parentSpanId) ? null : span.parentSpanId;
  const signalAgentName = effectiveAgentName({ agentName, agentNameFromService, parentSpanId });
  const operation = attributes.string('gen_ai.operation.name');
  const toolName = attributes.string('gen_ai.tool.name');
  const model = attributes.string('gen_ai.response.model', 'gen_ai.request.model');
  const provider = attributes.string('gen_ai.provider.name', 'gen_ai.system');
  const usage = usageOf(attributes);
  const content = contentOf(attributes, span.events);
  const errorType = attributes.string('error.type') ?? exceptionTypeOf(span.events);
  const sessionId = attributes.string('gen_ai.conversation.id', 'session.id');
  const userId = attributes.string('user.id', 'enduser.id');
  const experimentId = attributes.string('experiment.id');
  const variant = attributes.string('experiment.variant');
  const remainingAttributes = attributes.remaining();

  const signals: CanonicalSignal[] = [];
  const events: SpanEvent[] = [];
  for (const event of span.events) {
    if (content.usedEvents.has(event)) continue;
    const signal = event.name === EVALUATION_EVENT ? evaluationSignal(event, span, signalAgentName, receivedAtMs) : null;
    if (signal) signals.push(signal);
    else events.push({ name: event.name, timeMs: eventTimeMs(event, receivedAtMs), attributes: event.attributes });
  }

  const looksLikeModelCall = model !== null || usage.inputTokens !== null || usage.outputTokens !== null;
  return {
    span: {
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId,
      name: span.name,
      kind: spanKindOf(operation, toolName, looksLikeModelCall, span.attributes),
      agentName,
      agentNameFromService,
      startTimeMs: nanosToMs(span.startTimeUnixNano),
      endTimeMs: timeMsOrNull(span.endTimeUnixNano),
      status: STATUS_BY_CODE[span.status.code] ?? 'unset',
      statusMessage: span.status.message || null,
      errorType,
      model,
      provider,
      operation,
      ...usage,
      input: content.input,
      output: content.output,
      toolName,
      sessionId,
      userId,
      experimentId,
      variant,
      attributes: { ...origin.inheritedAttributes, ...remainingAttributes },
      events,
    },
    signals,
    ownAgentName,
  };
}

function usageOf(attributes: AttributeReader) {
  return {
    inputTokens: attributes.tokenCount('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'),
    outputTokens: attributes.tokenCount('gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'),
    cachedInputTokens: attributes.tokenCount('gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens'),
    cost: attributes.cost('gen_ai.usage.cost'),
  };
}

/**
 * Input and output text from the content attributes (current, tool-call, retrieval and legacy names),
 * else from the message events of the older conventions — which then leave the event list, as do the
 * attributes, so the content is stored once.
 */
function contentOf(attributes: AttributeReader, events: OtlpSpanEvent[]) {
  const usedEvents = new Set<OtlpSpanEvent>();
  const fromEvents = (matches: (event: OtlpSpanEvent) => boolean, toMessage: (event: OtlpSpanEvent) => Attributes) => {
    const matching = events.filter(matches);
    if (matching.length === 0) return null;
    for (const event of matching) usedEvents.add(event);
    return JSON.stringify(matching.map(toMessage));
  };
  const input =
    attributes.text('gen_ai.input.messages', 'gen_ai.tool.call.arguments', 'gen_ai.retrieval.query.text', 'gen_ai.prompt') ??
    attributes.indexedText('gen_ai.prompt') ??
    fromEvents(
      (event) => ROLE_BY_MESSAGE_EVENT.has(event.name),
      (event) => ({ role: ROLE_BY_MESSAGE_EVENT.get(event.name)!, ...event.attributes }),
    );
  const output =
    attributes.text('gen_ai.output.messages', 'gen_ai.tool.call.result', 'gen_ai.retrieval.documents', 'gen_ai.completion') ??
    attributes.indexedText('gen_ai.completion') ??
    fromEvents(
      (event) => event.name === CHOICE_EVENT,
      (event) => event.attributes,
    );
  return { input, output, usedEvents };
}

function exceptionTypeOf(events: OtlpSpanEvent[]): string | null {
  const exception = events.find((event) => event.name === EXCEPTION_EVENT);
  return exception ? firstString(exception.attributes, 'exception.type') : null;
}

function spanKindOf(operation: string | null, toolName: string | null, looksLikeModelCall: boolean, attributes: Attributes): SpanKind {
  const byOperation = operation === null ? undefined : KIND_BY_OPERATION.get(operation);
  if (byOperation) return byOperation;
  if (toolName !== null) return 'tool';
  const isDatabaseCall = Object.keys(attributes).some((key) => key.startsWith('db.'));
  if ((operation !== null && RETRIEVAL_OPERATION.test(operation)) || isDatabaseCall) return 'retrieval';
  // Instrumentations older than `gen_ai.operation.name` still name the model and count tokens.
  if (operation === null && looksLikeModelCall) return 'llm';
  return 'other';
}

/** A `gen_ai.evaluation.result` event with a numeric score; null (kept as a plain event) otherwise. */
function evaluationSignal(event: OtlpSpanEvent, span: OtlpSpan, agentName: string | null, receivedAtMs: number): CanonicalSignal | null {
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
    agentName,
    metadata: {
      ...(label !== null && { label }),
      ...(explanation !== null && { explanation }),
      ...attributes.remaining(),
    },
    timestampMs: eventTimeMs(event, receivedAtMs),
  };
}

/** An event without a time is placed when the request arrived, as log records without one are. */
const eventTimeMs = (event: OtlpSpanEvent, receivedAtMs: number): number =>
  timeMsOrNull(event.timeUnixNano) ?? receivedAtMs;
