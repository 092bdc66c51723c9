/**
 * The one mapping from an OTLP span's attributes to the canonical span's fields, for every dialect
 * instrumentations speak: the OpenTelemetry GenAI conventions (current and deprecated names), the
 * Vercel AI SDK (`ai.*`), OpenInference, OpenLLMetry/Traceloop, Langfuse (`langfuse.*`) and MCP.
 *
 * Each field lists its sources in order of precedence; the first holding a usable value wins and its
 * attribute leaves `attributes` (the others stay, as does every attribute nothing reads). An explicit
 * `langfuse.observation.*` value comes first where Langfuse has one: the Langfuse SDK writes it only
 * when the user set it. docs/ingestion.md shows the same order as a table, one row per field and dialect.
 */
import type { AttributeValue, CanonicalSpan, SpanKind, SpanStatus } from '../spans/model.ts';
import { type AttributeReader, type Attributes, asText, parsedJson } from './attributes.ts';
import { AGENT_NAME_ATTRIBUTE } from './common.ts';
import {
  contentText,
  metadataObject,
  openInferenceDocuments,
  openInferenceMessages,
  stringList,
  traceloopArguments,
  vercelPromptMessages,
  vercelResponse,
  withSystemInstructions,
} from './content.ts';
import type { OtlpSpan, OtlpSpanEvent } from './decode.ts';

/** Framework names that stand for the agent when no `gen_ai.agent.name` does (they stay attributes). */
export const FRAMEWORK_AGENT_SOURCES = [
  'ai.telemetry.functionId',
  'agent.name',
  'openinference.span.kind=AGENT: the span name',
  'traceloop.span.kind=agent: traceloop.entity.name',
  'traceloop.workflow.name',
  'langfuse.trace.name',
] as const;

/** Kind sources, in order; they stay attributes, since several of their values map to one kind. */
export const KIND_SOURCES = [
  'langfuse.observation.type',
  'gen_ai.operation.name',
  'openinference.span.kind',
  'traceloop.span.kind',
  'ai.operationId',
  'mcp.method.name',
] as const;

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

/** Langfuse observation types; `span` and `event` say nothing more than any span. */
const KIND_BY_LANGFUSE_TYPE = new Map<string, SpanKind>([
  ['generation', 'llm'],
  ['embedding', 'embedding'],
  ['agent', 'agent'],
  ['tool', 'tool'],
  ['chain', 'chain'],
  ['retriever', 'retrieval'],
  ['evaluator', 'other'],
  ['guardrail', 'other'],
]);

const KIND_BY_OPENINFERENCE_KIND = new Map<string, SpanKind>([
  ['LLM', 'llm'],
  ['CHAIN', 'chain'],
  ['TOOL', 'tool'],
  ['RETRIEVER', 'retrieval'],
  ['RERANKER', 'retrieval'],
  ['EMBEDDING', 'embedding'],
  ['AGENT', 'agent'],
  ['GUARDRAIL', 'other'],
  ['EVALUATOR', 'other'],
  ['PROMPT', 'other'],
]);

const KIND_BY_TRACELOOP_KIND = new Map<string, SpanKind>([
  ['workflow', 'chain'],
  ['task', 'chain'],
  ['agent', 'agent'],
  ['tool', 'tool'],
  ['session', 'other'],
]);

/** Vercel AI SDK operations: the outer call runs the steps (model calls, tools), the `do*` span is one model call. */
const KIND_BY_VERCEL_OPERATION = new Map<string, SpanKind>([
  ['ai.generateText', 'chain'],
  ['ai.streamText', 'chain'],
  ['ai.generateObject', 'chain'],
  ['ai.streamObject', 'chain'],
  ['ai.embed', 'chain'],
  ['ai.embedMany', 'chain'],
  ['ai.rerank', 'chain'],
  ['ai.generateText.doGenerate', 'llm'],
  ['ai.streamText.doStream', 'llm'],
  ['ai.generateObject.doGenerate', 'llm'],
  ['ai.streamObject.doStream', 'llm'],
  ['ai.embed.doEmbed', 'embedding'],
  ['ai.embedMany.doEmbed', 'embedding'],
  ['ai.rerank.doRerank', 'retrieval'],
  ['ai.toolCall', 'tool'],
]);

const KIND_BY_MCP_METHOD = new Map<string, SpanKind>([
  ['tools/call', 'tool'],
  ['resources/read', 'retrieval'],
]);

export const OPERATION_KEYS = ['gen_ai.operation.name', 'ai.operationId', 'mcp.method.name'] as const;

export const MODEL_KEYS = [
  'langfuse.observation.model.name',
  'gen_ai.response.model',
  'ai.response.model',
  'llm.response.model',
  'llm.model_name',
  'gen_ai.request.model',
  'ai.model.id',
  'llm.request.model',
  'embedding.model_name',
  'reranker.model_name',
] as const;

export const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system', 'ai.model.provider'] as const;

export const INPUT_TOKEN_KEYS = [
  'gen_ai.usage.input_tokens',
  'gen_ai.usage.prompt_tokens',
  'ai.usage.inputTokens',
  'ai.usage.promptTokens',
  'ai.usage.tokens',
  'llm.token_count.prompt',
  'llm.usage.prompt_tokens',
] as const;

export const OUTPUT_TOKEN_KEYS = [
  'gen_ai.usage.output_tokens',
  'gen_ai.usage.completion_tokens',
  'ai.usage.outputTokens',
  'ai.usage.completionTokens',
  'llm.token_count.completion',
  'llm.usage.completion_tokens',
] as const;

export const CACHED_INPUT_TOKEN_KEYS = [
  'gen_ai.usage.cache_read.input_tokens',
  'gen_ai.usage.cache_read_input_tokens',
  'ai.usage.cachedInputTokens',
  'ai.usage.inputTokenDetails.cacheReadTokens',
  'llm.token_count.prompt_details.cache_read',
] as const;

export const REASONING_TOKEN_KEYS = [
  'gen_ai.usage.reasoning.output_tokens',
  'gen_ai.usage.reasoning_tokens',
  'ai.usage.reasoningTokens',
  'ai.usage.outputTokenDetails.reasoningTokens',
  'llm.token_count.completion_details.reasoning',
] as const;

export const LANGFUSE_USAGE = 'langfuse.observation.usage_details';
export const LANGFUSE_COST = 'langfuse.observation.cost_details';
export const COST_KEYS = ['gen_ai.usage.cost', 'llm.cost.total'] as const;

export const TOOL_NAME_KEYS = ['gen_ai.tool.name', 'ai.toolCall.name', 'tool.name'] as const;

export const SESSION_KEYS = [
  'gen_ai.conversation.id',
  'session.id',
  'langfuse.session.id',
  'ai.telemetry.metadata.sessionId',
  'traceloop.association.properties.session_id',
] as const;

export const USER_KEYS = ['user.id', 'enduser.id', 'langfuse.user.id', 'ai.telemetry.metadata.userId', 'traceloop.association.properties.user_id'] as const;

export const TAG_KEYS = ['langfuse.trace.tags', 'tag.tags', 'ai.telemetry.metadata.tags'] as const;

/** Attribute families whose members become metadata entries (the family prefix dropped). */
export const METADATA_PREFIXES = [
  'langfuse.trace.metadata',
  'langfuse.observation.metadata',
  'ai.telemetry.metadata',
  'traceloop.association.properties',
] as const;

/** Content sources (see `contentOf` for their order). */
export const LANGFUSE_INPUT_KEYS = ['langfuse.observation.input', 'langfuse.trace.input'] as const;
export const LANGFUSE_OUTPUT_KEYS = ['langfuse.observation.output', 'langfuse.trace.output'] as const;
export const GENAI_INPUT_KEYS = ['gen_ai.tool.call.arguments', 'gen_ai.retrieval.query.text', 'gen_ai.prompt'] as const;
export const GENAI_OUTPUT_KEYS = ['gen_ai.output.messages', 'gen_ai.tool.call.result', 'gen_ai.retrieval.documents', 'gen_ai.completion'] as const;
export const VERCEL_INPUT_KEYS = ['ai.toolCall.args', 'ai.values', 'ai.value'] as const;
export const VERCEL_TOOL_CALLS_KEYS = ['ai.response.toolCalls', 'ai.result.toolCalls'] as const;
export const VERCEL_TEXT_KEYS = ['ai.response.text', 'ai.result.text'] as const;
export const VERCEL_OBJECT_KEYS = ['ai.response.object', 'ai.result.object'] as const;
const OPENINFERENCE_CONTENT_KEYS = {
  input: { messages: 'llm.input_messages', value: 'input.value', mimeType: 'input.mime_type' },
  output: { messages: 'llm.output_messages', value: 'output.value', mimeType: 'output.mime_type' },
} as const;

const AGENT_NAMING_KEYS = ['ai.telemetry.functionId', 'agent.name'] as const;
const TRACE_NAMING_KEYS = ['traceloop.workflow.name', 'langfuse.trace.name'] as const;
const TOKEN_KEYS = [...INPUT_TOKEN_KEYS, ...OUTPUT_TOKEN_KEYS] as const;

const ROLE_BY_MESSAGE_EVENT = new Map([
  ['gen_ai.system.message', 'system'],
  ['gen_ai.user.message', 'user'],
  ['gen_ai.assistant.message', 'assistant'],
  ['gen_ai.tool.message', 'tool'],
]);
const CHOICE_EVENT = 'gen_ai.choice';

/** The canonical span's fields the attributes supply, and what the mapping tells its caller. */
export type SpanFields = Pick<
  CanonicalSpan,
  | 'kind'
  | 'operation'
  | 'model'
  | 'provider'
  | 'inputTokens'
  | 'outputTokens'
  | 'cachedInputTokens'
  | 'reasoningTokens'
  | 'cost'
  | 'input'
  | 'output'
  | 'toolName'
  | 'sessionId'
  | 'userId'
  | 'tags'
  | 'metadata'
  | 'statusMessage'
> & {
  /** Set only when an attribute overrides the OTLP status (Langfuse's `level: ERROR`). */
  status: SpanStatus | null;
  /** The span's own `gen_ai.agent.name`. */
  agentName: string | null;
  /** The framework's name for the agent or workflow the span belongs to. */
  frameworkAgentName: string | null;
  /** Message events whose content became the input or output (they leave the event list). */
  usedEvents: Set<OtlpSpanEvent>;
};

/** Reads every canonical field out of `attributes` (moving what it uses) for the span `span`. */
export function mapSpanFields(attributes: AttributeReader, span: OtlpSpan, scope: InstrumentationScope | null = null): SpanFields {
  const isVercel = attributes.peek('ai.operationId') !== undefined;
  const agentName = attributes.string(AGENT_NAME_ATTRIBUTE);
  const frameworkAgentName = frameworkAgentNameOf(attributes, span.name, scope);
  const dialectKind = dialectKindOf(attributes);
  const explicitToolName = attributes.string(TOOL_NAME_KEYS) ?? traceloopToolName(attributes);
  const kind = dialectKind ?? fallbackKind(attributes, explicitToolName);
  const toolName = explicitToolName ?? (kind === 'tool' ? toolNameFromSpanName(span.name) : null);
  const operation = attributes.string(OPERATION_KEYS);
  const model = attributes.string(MODEL_KEYS);
  const provider = providerOf(attributes, isVercel);
  const usage = usageOf(attributes, scope);
  const content = contentOf(attributes, span.events);
  const level = attributes.peekString('langfuse.observation.level');
  const failedByLevel = level?.toUpperCase() === 'ERROR' && span.status.code !== 2;
  const tags = tagsOf(attributes);
  const sessionId = attributes.string(SESSION_KEYS);
  const userId = attributes.string(USER_KEYS);
  const metadata = metadataOf(attributes);
  return {
    kind,
    status: failedByLevel ? 'error' : null,
    statusMessage: failedByLevel ? attributes.string('langfuse.observation.status_message') : null,
    operation,
    model,
    provider,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
    cost: usage.cost,
    input: content.input,
    output: content.output,
    usedEvents: content.usedEvents,
    toolName,
    sessionId,
    userId,
    tags,
    metadata,
    agentName,
    frameworkAgentName,
  };
}

/** The instrumentation scope that made a span: its library's name and version, as the OTLP request groups spans. */
export interface InstrumentationScope {
  name: string;
  version: string;
}

/**
 * Whether the scope is the named library at a version up to `newest` (`[major, minor]`, the newest whose
 * behaviour was checked): a later release may have changed it. An unversioned scope counts as checked.
 */
function isLibraryUpTo(scope: InstrumentationScope | null, name: string, [major, minor]: readonly [number, number]): boolean {
  if (scope?.name !== name) return false;
  const version = /^(\d+)\.(\d+)/.exec(scope.version);
  if (!version) return true;
  const [sentMajor, sentMinor] = [Number(version[1]), Number(version[2])];
  return sentMajor < major || (sentMajor === major && sentMinor <= minor);
}

/**
 * `@traceloop/instrumentation-langchain` (0.27, the newest checked) writes a chain span's own LangChain
 * runnable (`RunnableSequence`, `RunnableLambda`, `prompt`, …) as its `traceloop.workflow.name`, not the
 * application's workflow as the Traceloop SDK's decorators do (they write it on every span within,
 * this instrumentation's model and tool spans included, which keep it): as agent names they made one
 * agent of each class.
 */
const namesItsRunnable = (attributes: AttributeReader, scope: InstrumentationScope | null) =>
  attributes.peekString('traceloop.span.kind') === 'workflow' && isLibraryUpTo(scope, '@traceloop/instrumentation-langchain', [0, 27]);

function frameworkAgentNameOf(attributes: AttributeReader, spanName: string, scope: InstrumentationScope | null): string | null {
  const isOpenInferenceAgent = attributes.peekString('openinference.span.kind')?.toUpperCase() === 'AGENT';
  const isTraceloopAgent = attributes.peekString('traceloop.span.kind') === 'agent';
  return (
    attributes.peekString(AGENT_NAMING_KEYS) ??
    (isOpenInferenceAgent ? spanName : null) ??
    (isTraceloopAgent ? attributes.peekString('traceloop.entity.name') : null) ??
    (namesItsRunnable(attributes, scope) ? attributes.peekString('langfuse.trace.name') : attributes.peekString(TRACE_NAMING_KEYS))
  );
}

/** The kind a dialect states outright, in the order of `KIND_SOURCES`. */
function dialectKindOf(attributes: AttributeReader): SpanKind | null {
  const kind =
    statedKind(attributes, 'langfuse.observation.type', KIND_BY_LANGFUSE_TYPE) ??
    statedKind(attributes, 'gen_ai.operation.name', KIND_BY_OPERATION) ??
    statedKind(attributes, 'openinference.span.kind', KIND_BY_OPENINFERENCE_KIND, true) ??
    statedKind(attributes, 'traceloop.span.kind', KIND_BY_TRACELOOP_KIND) ??
    statedKind(attributes, 'ai.operationId', KIND_BY_VERCEL_OPERATION);
  if (kind) return kind;
  const mcpMethod = attributes.peekString('mcp.method.name');
  return mcpMethod === null ? null : (KIND_BY_MCP_METHOD.get(mcpMethod) ?? 'other');
}

function statedKind(attributes: AttributeReader, key: string, kinds: Map<string, SpanKind>, upperCase = false): SpanKind | undefined {
  const value = attributes.peekString(key);
  return value === null ? undefined : kinds.get(upperCase ? value.toUpperCase() : value);
}

/** What a span is when no dialect says so: a tool call, a retrieval, a model call by its model or tokens. */
function fallbackKind(attributes: AttributeReader, toolName: string | null): SpanKind {
  if (toolName !== null) return 'tool';
  const operation = attributes.peekString('gen_ai.operation.name');
  const isDatabaseCall = attributes.keys().some((key) => key.startsWith('db.'));
  if ((operation !== null && RETRIEVAL_OPERATION.test(operation)) || isDatabaseCall) return 'retrieval';
  // Instrumentations older than `gen_ai.operation.name` still name the model and count tokens.
  const looksLikeModelCall = attributes.peekString(MODEL_KEYS) !== null || attributes.peekString(TOKEN_KEYS) !== null;
  return operation === null && looksLikeModelCall ? 'llm' : 'other';
}

/** Traceloop names a tool by its entity name (its MCP instrumentation too). */
const traceloopToolName = (attributes: AttributeReader): string | null =>
  attributes.peekString('traceloop.span.kind') === 'tool' ? attributes.string('traceloop.entity.name') : null;

/** A tool span named after its tool: `execute_tool get_weather`, `tools/call get_weather`, `get_weather.tool`, `get_weather`. */
function toolNameFromSpanName(name: string): string | null {
  const bare = name
    .replace(/^(execute_tool|tools\/call)\s+/, '')
    .replace(/\.tool$/, '')
    .trim();
  return bare === '' ? null : bare;
}

/** The Vercel AI SDK names providers `openai.chat`, `anthropic.messages`, …: the provider is the first part. */
function providerOf(attributes: AttributeReader, isVercel: boolean): string | null {
  const provider = attributes.string(PROVIDER_KEYS);
  return isVercel && provider !== null ? provider.split('.')[0]! : provider;
}

/**
 * `@traceloop/instrumentation-anthropic` (0.27, the newest checked) sends Anthropic's own `input_tokens`,
 * which leave out the tokens read from and written to the prompt cache (sent beside them), where the
 * conventions count them in. Its Python sibling (`opentelemetry.instrumentation.anthropic`) adds them
 * itself, as OpenInference's does.
 */
const leavesCacheOut = (scope: InstrumentationScope | null) => isLibraryUpTo(scope, '@traceloop/instrumentation-anthropic', [0, 27]);
const CACHE_WRITE_TOKEN_KEYS = ['gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens'] as const;

/** The input tokens with the cache's read and written tokens added back (the written ones are left in the attributes as sent). */
function inputWithCache(attributes: AttributeReader, input: number | null, cachedInput: number | null): number | null {
  if (input === null) return null;
  return input + (cachedInput ?? 0) + (attributes.peekTokenCount(CACHE_WRITE_TOKEN_KEYS) ?? 0);
}

function usageOf(attributes: AttributeReader, scope: InstrumentationScope | null) {
  const langfuse = langfuseUsage(langfuseDetails(attributes, LANGFUSE_USAGE));
  if (Object.values(langfuse).some((count) => count !== null)) attributes.discard(LANGFUSE_USAGE);
  const langfuseTotal = langfuseCost(langfuseDetails(attributes, LANGFUSE_COST));
  if (langfuseTotal !== null) attributes.discard(LANGFUSE_COST);
  const cachedInputTokens = langfuse.cachedInput ?? attributes.tokenCount(CACHED_INPUT_TOKEN_KEYS);
  const input = langfuse.input ?? attributes.tokenCount(INPUT_TOKEN_KEYS);
  // Besides the producers known to: more tokens read from the cache than input tokens in all, which a
  // count of the cache included cannot be, left the cache out (a guard against an impossible count,
  // not a correction of every such producer's: one whose cached tokens stay under its count is taken as sent).
  const inputLeavesCacheOut = langfuse.input === null && (leavesCacheOut(scope) || (input !== null && cachedInputTokens !== null && cachedInputTokens > input));
  return {
    inputTokens: inputLeavesCacheOut ? inputWithCache(attributes, input, cachedInputTokens) : input,
    outputTokens: langfuse.output ?? attributes.tokenCount(OUTPUT_TOKEN_KEYS),
    cachedInputTokens,
    reasoningTokens: langfuse.reasoning ?? attributes.tokenCount(REASONING_TOKEN_KEYS),
    cost: langfuseTotal ?? attributes.cost(COST_KEYS),
  };
}

/** Langfuse usage or cost details: a JSON object of named amounts. */
function langfuseDetails(attributes: AttributeReader, key: string): AttributeValue | null {
  const value = attributes.peek(key);
  return value === undefined ? null : parsedJson(value);
}

const LANGFUSE_CACHE_READ_KEYS = ['input_cached_tokens', 'input_cache_read', 'cache_read_input_tokens'];
const LANGFUSE_REASONING_KEYS = ['output_reasoning_tokens', 'output_reasoning', 'reasoning_tokens'];

/**
 * Langfuse usage details: `input` and `output` plus named details. As Langfuse counts them, `input`
 * excludes the cached and cache-written tokens reported beside it, so the input is their sum.
 */
function langfuseUsage(details: AttributeValue | null) {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return NO_LANGFUSE_USAGE;
  const counts = new Map<string, number>();
  for (const [key, value] of Object.entries(details)) {
    const count = typeof value === 'string' ? Number(value) : value;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 0) counts.set(key, count);
  }
  return {
    input: sumOf(counts, isLangfuseInput),
    output: sumOf(counts, isLangfuseOutput),
    cachedInput: sumOf(counts, (key) => LANGFUSE_CACHE_READ_KEYS.includes(key)),
    reasoning: sumOf(counts, (key) => LANGFUSE_REASONING_KEYS.includes(key)),
  };
}

const NO_LANGFUSE_USAGE = { input: null, output: null, cachedInput: null, reasoning: null };

const isLangfuseInput = (key: string) =>
  key === 'input' || key === 'prompt_tokens' || key === 'input_tokens' || key.startsWith('input_') || /^cache_\w+_input_tokens$/.test(key);
const isLangfuseOutput = (key: string) => key === 'output' || key === 'completion_tokens' || key === 'output_tokens' || key.startsWith('output_');

/** The sum of the counts whose key matches, null when none does. */
function sumOf(counts: Map<string, number>, matches: (key: string) => boolean): number | null {
  let total: number | null = null;
  for (const [key, count] of counts) if (matches(key)) total = (total ?? 0) + count;
  return total;
}

/** Langfuse cost details: the `total`, else the sum of the parts. */
function langfuseCost(details: AttributeValue | null): number | null {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return null;
  const amounts = Object.entries(details).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]) && entry[1] >= 0,
  );
  const total = amounts.find(([key]) => key === 'total');
  return total ? total[1] : amounts.length > 0 ? amounts.reduce((sum, [, amount]) => sum + amount, 0) : null;
}

/**
 * Input and output sources, in order of precedence (see the module comment). Content is kept as sent
 * unless a dialect spreads it over several attributes or wraps it, when it is rebuilt as JSON.
 */
function contentOf(attributes: AttributeReader, events: OtlpSpanEvent[]) {
  const usedEvents = new Set<OtlpSpanEvent>();
  const input =
    attributes.text(LANGFUSE_INPUT_KEYS) ??
    genAiInputMessages(attributes) ??
    attributes.text(GENAI_INPUT_KEYS) ??
    contentText(attributes.indexedList('gen_ai.prompt')) ??
    messageEvents(
      events,
      usedEvents,
      (event) => ROLE_BY_MESSAGE_EVENT.has(event.name),
      (event) => ({ role: ROLE_BY_MESSAGE_EVENT.get(event.name)!, ...event.attributes }),
    ) ??
    contentEvent(events, usedEvents, 'gen_ai.content.prompt', 'gen_ai.prompt') ??
    attributes.text('ai.prompt.messages') ??
    contentText(vercelPromptMessages(attributes.json('ai.prompt'))) ??
    vercelInput(attributes) ??
    openInferenceContent(attributes, 'input') ??
    contentText(traceloopArguments(attributes.json('traceloop.entity.input'))) ??
    attributes.text('mcp.resource.uri');
  const output =
    attributes.text(LANGFUSE_OUTPUT_KEYS) ??
    attributes.text(GENAI_OUTPUT_KEYS) ??
    contentText(attributes.indexedList('gen_ai.completion')) ??
    messageEvents(
      events,
      usedEvents,
      (event) => event.name === CHOICE_EVENT,
      (event) => event.attributes,
    ) ??
    contentEvent(events, usedEvents, 'gen_ai.content.completion', 'gen_ai.completion') ??
    vercelOutput(attributes) ??
    openInferenceContent(attributes, 'output') ??
    // The Traceloop SDK records the returned value as JSON: a returned string is its text.
    contentText(attributes.json('traceloop.entity.output')) ??
    attributes.text('mcp.response.value');
  return { input, output, usedEvents };
}

/** The message events of the older conventions as a list; they then leave the event list (`used`). */
function messageEvents(
  events: OtlpSpanEvent[],
  used: Set<OtlpSpanEvent>,
  matches: (event: OtlpSpanEvent) => boolean,
  toMessage: (event: OtlpSpanEvent) => Attributes,
): string | null {
  const matching = events.filter(matches);
  if (matching.length === 0) return null;
  for (const event of matching) used.add(event);
  return contentText(matching.map(toMessage));
}

/** The content events of the conventions before message events (`gen_ai.content.prompt` carrying `gen_ai.prompt`, …). */
function contentEvent(events: OtlpSpanEvent[], used: Set<OtlpSpanEvent>, name: string, attribute: string): string | null {
  const event = events.find((candidate) => candidate.name === name && candidate.attributes[attribute] !== undefined);
  if (!event) return null;
  used.add(event);
  return contentText(event.attributes[attribute]);
}

/** `gen_ai.input.messages`, led by `gen_ai.system_instructions` when the instrumentation sends those apart. */
function genAiInputMessages(attributes: AttributeReader): string | null {
  if (attributes.peek('gen_ai.system_instructions') === undefined) return attributes.text('gen_ai.input.messages');
  const messages = attributes.json('gen_ai.input.messages');
  return messages === null ? null : contentText(withSystemInstructions(messages, attributes.json('gen_ai.system_instructions')));
}

/**
 * A tool call's arguments as sent; what was embedded decoded: the AI SDK records the value as JSON
 * text (`ai.value`) and a list of values as a list of JSON texts (`ai.values`).
 */
function vercelInput(attributes: AttributeReader): string | null {
  const [args, values, value] = VERCEL_INPUT_KEYS;
  const toolArguments = attributes.text(args);
  if (toolArguments !== null) return toolArguments;
  const list = attributes.json(values);
  if (list !== null) return contentText(Array.isArray(list) ? list.map(parsedJson) : list);
  return contentText(attributes.json(value));
}

/** The model's answer (text and tool calls as one message), a tool's result or a generated object, also under the names before AI SDK 4. */
function vercelOutput(attributes: AttributeReader): string | null {
  const toolCalls = attributes.json(VERCEL_TOOL_CALLS_KEYS);
  if (toolCalls !== null) return contentText(vercelResponse(attributes.json(VERCEL_TEXT_KEYS), toolCalls));
  // A tool's result is recorded as JSON: a returned string is its text.
  return attributes.text(VERCEL_TEXT_KEYS) ?? contentText(attributes.json('ai.toolCall.result')) ?? attributes.text(VERCEL_OBJECT_KEYS);
}

/**
 * A flattened message with nothing but its role (every other field empty): OpenInference's LangChain
 * instrumentation flattens an AI message whose tool calls LangChain keeps outside `additional_kwargs`
 * as `{role, content: ""}`. A tool call, a function call or a tool call id is something.
 */
const saysNothing = (message: AttributeValue): boolean =>
  message !== null &&
  typeof message === 'object' &&
  !Array.isArray(message) &&
  Object.entries(message).every(([key, value]) => key === 'role' || value === '' || value === null || (Array.isArray(value) && value.length === 0));

/**
 * OpenInference: chat messages (or retrieved documents) when the span has them, else `input.value` /
 * `output.value`; messages that say nothing but their roles do not stand in for a value sent beside them.
 */
function openInferenceContent(attributes: AttributeReader, direction: 'input' | 'output'): string | null {
  const keys = OPENINFERENCE_CONTENT_KEYS[direction];
  const messages = openInferenceMessages(attributes.indexedList(keys.messages));
  const emptyMessages = messages?.every(saysNothing) && asText(attributes.peek(keys.value)) !== null;
  const structured =
    (emptyMessages ? null : messages) ?? (direction === 'output' ? openInferenceDocuments(attributes.indexedList('retrieval.documents')) : null);
  if (structured !== null) {
    // The raw request or response body repeats the same content.
    attributes.discard([keys.value, keys.mimeType]);
    return contentText(structured);
  }
  const value = attributes.text(keys.value);
  if (value !== null) attributes.discard(keys.mimeType);
  return value;
}

function tagsOf(attributes: AttributeReader): string[] {
  const tags = new Set<string>();
  for (const key of TAG_KEYS) {
    const value = attributes.peek(key);
    if (value === undefined) continue;
    for (const tag of stringList(value)) tags.add(tag);
    attributes.discard(key);
  }
  return [...tags];
}

/** Metadata from every dialect, merged (trace-level before span-level, so the span's own wins a clash). */
function metadataOf(attributes: AttributeReader): Attributes {
  const parts = [
    wholeMetadata(attributes, 'langfuse.trace.metadata'),
    attributes.prefixed('langfuse.trace.metadata'),
    wholeMetadata(attributes, 'langfuse.observation.metadata'),
    attributes.prefixed('langfuse.observation.metadata'),
    wholeMetadata(attributes, 'metadata'),
    attributes.prefixed('ai.telemetry.metadata'),
    attributes.prefixed('traceloop.association.properties'),
  ];
  return Object.assign({}, ...parts.filter((part) => part !== null));
}

/** Metadata sent as one value under `key` (moved). */
function wholeMetadata(attributes: AttributeReader, key: string): Attributes | null {
  const value = attributes.peek(key);
  if (value === undefined) return null;
  attributes.discard(key);
  return metadataObject(value);
}
