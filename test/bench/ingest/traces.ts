import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { nativeSpan } from '#shared/schemas/spans.ts';

/** A span as an SDK sends it to `POST /api/spans`. */
export type NativeSpanInput = z.input<typeof nativeSpan>;

export interface SentTrace {
  traceId: string;
  spanCount: number;
}

/** One request's worth of spans, serialised ahead of time so the clients spend no time on it while measured. */
export interface SpanBatch {
  body: string;
  spanCount: number;
  traces: SentTrace[];
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so every run sends the same shapes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface AgentProfile {
  name: string;
  task: string;
  /** [model, provider] pairs the agent calls. */
  models: ReadonlyArray<readonly [string, string]>;
  tools: readonly string[];
}

const AGENTS: readonly AgentProfile[] = [
  {
    name: 'support-bot',
    task: 'answer ticket',
    models: [
      ['gpt-4o-mini', 'openai'],
      ['claude-sonnet-4-5', 'anthropic'],
    ],
    tools: ['orders.lookup', 'refunds.create'],
  },
  {
    name: 'trip-planner',
    task: 'plan trip',
    models: [
      ['gpt-4.1', 'openai'],
      ['gemini-2.5-flash', 'google'],
    ],
    tools: ['flights.search', 'weather.get'],
  },
  {
    name: 'code-reviewer',
    task: 'review pull request',
    models: [
      ['claude-sonnet-4-5', 'anthropic'],
      ['gpt-5-mini', 'openai'],
    ],
    tools: ['git.diff', 'ci.status'],
  },
  {
    name: 'research-assistant',
    task: 'research question',
    models: [
      ['amazon.nova-pro-v1:0', 'amazon'],
      ['mistral-large-latest', 'mistral'],
    ],
    tools: ['web.search', 'pdf.read'],
  },
  {
    name: 'sales-router',
    task: 'route lead',
    models: [
      ['gpt-4o-mini', 'openai'],
      ['claude-haiku-4-5', 'anthropic'],
    ],
    tools: ['crm.find', 'calendar.book'],
  },
];

/** Kinds of the spans under the agent root, in order: a trace of n spans has the first n - 1. */
const CHILD_KINDS = ['llm', 'tool', 'llm', 'retrieval', 'llm'] as const;
const MAX_SPANS_PER_TRACE = CHILD_KINDS.length + 1;
const MIN_SPANS_PER_TRACE = 4;

/** Words of support, travel and engineering chats; prose is drawn from them so no two texts repeat (compression sees realistic text). */
const WORDS = (
  'the a an and or but if then so because while when before after customer order parcel refund replacement address ' +
  'delivery weekend week month yesterday today tomorrow please thanks could would should can will may must not never ' +
  'ticket account invoice payment card charge twice missing damaged late early flight hotel train booking seat window ' +
  'price budget itinerary weather forecast rain sunny museum dinner meeting calendar lead contact company deal quote ' +
  'review pull request diff test failing passing build branch merge commit function variable null error timeout retry ' +
  'service database query index latency cache memory report summary question answer source document page section table ' +
  'i you we they it this that these those my your our their is are was were be been have has had do does did ' +
  'check confirm update cancel change send ship return open close find search book move keep need want know think ' +
  'new old same other first last next previous quick slow small large full empty correct wrong clear possible ' +
  'of to in on at for with from by about into over under between through during without within again also only'
).split(' ');

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: () => number, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

/** Sentences of random words, `minChars`–`maxChars` long. */
function prose(random: () => number, minChars: number, maxChars: number): string {
  const length = between(random, minChars, maxChars);
  let text = '';
  while (text.length < length) {
    const words = Array.from({ length: between(random, 6, 18) }, () => pick(random, WORDS));
    text += `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}. `;
  }
  return text.slice(0, length);
}

/**
 * How a trace goes wrong, if it does: an LLM call so slow that the trace crosses the default alert
 * threshold on duration (5 s), or a tool call that fails. Healthy traces stay well under the thresholds.
 */
type Anomaly = 'none' | 'slow' | 'failing-tool';

/**
 * A native agent trace of `spanCount` spans: an agent root over LLM calls, tool calls and a retrieval,
 * one after another; in one of 500 conversations unless `sessionId` names one.
 */
function agentTrace(random: () => number, spanCount: number, startMs: number, anomaly: Anomaly, sessionId?: string): NativeSpanInput[] {
  const agent = pick(random, AGENTS);
  const question = prose(random, 80, 300);
  const traceId = hex(16);
  const rootId = hex(8);
  const kinds = CHILD_KINDS.slice(0, spanCount - 1);
  const slowCall = anomaly === 'slow' ? kinds.indexOf('llm') : -1;
  const failingCall = anomaly === 'failing-tool' ? kinds.indexOf('tool') : -1;
  const children: NativeSpanInput[] = [];
  let clock = startMs + between(random, 5, 30);
  for (const [i, kind] of kinds.entries()) {
    const durationMs = i === slowCall ? between(random, 6000, 9000) : kind === 'llm' ? between(random, 300, 1100) : between(random, 20, 300);
    const base = {
      traceId,
      spanId: hex(8),
      parentSpanId: rootId,
      agentName: agent.name,
      startTime: new Date(clock).toISOString(),
      endTime: new Date(clock + durationMs).toISOString(),
    };
    children.push({ ...base, ...childDetails(random, kind, agent, question, i === failingCall) });
    clock += durationMs + between(random, 2, 40);
  }
  const failed = failingCall >= 0;
  const root: NativeSpanInput = {
    traceId,
    spanId: rootId,
    name: agent.task,
    kind: 'agent',
    agentName: agent.name,
    startTime: startMs,
    endTime: clock,
    status: failed ? 'error' : 'ok',
    ...(failed ? { statusMessage: 'gave up after a tool failure', errorType: 'ToolError' } : {}),
    input: { question, channel: 'web' },
    output: failed ? null : prose(random, 150, 600),
    sessionId: sessionId ?? `sess-${between(random, 1, 500)}`,
    userId: `user-${between(random, 1, 2000)}`,
    attributes: { 'deployment.environment': 'bench', 'service.version': '1.4.2' },
  };
  return [root, ...children];
}

/** A child span; an LLM call's prompt carries the user's question, as agents' prompts do. */
function childDetails(
  random: () => number,
  kind: (typeof CHILD_KINDS)[number],
  agent: AgentProfile,
  question: string,
  fails: boolean,
): Omit<NativeSpanInput, 'traceId' | 'spanId' | 'startTime'> {
  if (kind === 'llm') {
    const [model, provider] = pick(random, agent.models);
    return {
      name: `chat ${model}`,
      kind,
      model,
      provider,
      operation: 'chat',
      inputTokens: between(random, 300, 3000),
      outputTokens: between(random, 40, 600),
      status: 'ok',
      input: [
        { role: 'system', content: `You are ${agent.name}. Be concise and cite the tools you used.` },
        { role: 'user', content: `${question}\n\nContext: ${prose(random, 100, 600)}` },
      ],
      output: prose(random, 100, 800),
      attributes: { 'gen_ai.request.temperature': 0.2, 'gen_ai.request.max_tokens': 1024 },
    };
  }
  if (kind === 'tool') {
    const toolName = pick(random, agent.tools);
    return {
      name: `execute_tool ${toolName}`,
      kind,
      toolName,
      status: fails ? 'error' : 'ok',
      ...(fails ? { statusMessage: 'upstream answered 503 Service Unavailable', errorType: 'HttpError' } : {}),
      input: { id: hex(6), limit: 10 },
      output: fails ? null : { found: true, items: between(random, 1, 9), summary: prose(random, 40, 200) },
    };
  }
  return {
    name: 'vector search',
    kind,
    status: 'ok',
    input: prose(random, 40, 160),
    output: Array.from({ length: 5 }, () => `doc-${hex(4)}`),
    attributes: { 'db.system': 'opensearch', 'retrieval.top_k': 5 },
  };
}

/**
 * `requests` request bodies of `spansPerRequest` spans each, made of whole traces of 4–6 spans (the
 * last trace of a request is cut shorter when fewer spans are left). Traces start in the minute
 * before `startMs`; `anomalyRate` (0–1) of them are slow or have a failing tool, half each.
 */
export function spanBatches(random: () => number, requests: number, spansPerRequest: number, startMs: number, anomalyRate: number): SpanBatch[] {
  const anomaly = (): Anomaly => (random() >= anomalyRate ? 'none' : random() < 0.5 ? 'slow' : 'failing-tool');
  return Array.from({ length: requests }, () => {
    const traces: NativeSpanInput[][] = [];
    for (let spans = 0; spans < spansPerRequest; spans += traces.at(-1)!.length) {
      const size = Math.min(between(random, MIN_SPANS_PER_TRACE, MAX_SPANS_PER_TRACE), spansPerRequest - spans);
      traces.push(agentTrace(random, size, startMs - between(random, 0, 60_000), anomaly()));
    }
    return batchOf(traces);
  });
}

/**
 * `turns` requests of one trace of 4–6 spans each, all of the conversation `sessionId`, a turn a
 * second from `startMs`: an agent that sends each turn as it ends.
 */
export function conversationTurns(random: () => number, turns: number, sessionId: string, startMs: number): SpanBatch[] {
  return Array.from({ length: turns }, (_, turn) =>
    batchOf([agentTrace(random, between(random, MIN_SPANS_PER_TRACE, MAX_SPANS_PER_TRACE), startMs + turn * 1000, 'none', sessionId)]),
  );
}

/** One request of whole traces (each a root span first). */
function batchOf(traces: readonly NativeSpanInput[][]): SpanBatch {
  const spans = traces.flat();
  return {
    body: JSON.stringify({ spans }),
    spanCount: spans.length,
    traces: traces.map((trace) => ({ traceId: trace[0]!.traceId, spanCount: trace.length })),
  };
}

export const spanCountOf = (batches: readonly SpanBatch[]): number => batches.reduce((sum, b) => sum + b.spanCount, 0);
