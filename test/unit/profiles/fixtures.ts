import { rollupOf, rollupsByBucket } from '#shared/domain/analytics/rollup.ts';
import { measureWindow, type WindowMeasurement } from '#shared/domain/profiles/measurement.ts';
import { templateNarrative } from '#shared/domain/profiles/narrative.ts';
import { type AgentProfile, assembleProfile } from '#shared/domain/profiles/profile.ts';
import { DEFAULT_LEARNING_SETTINGS } from '#shared/domain/profiles/settings.ts';
import { type LearningEvidence, profileStatistics, sampleTrace } from '#shared/domain/profiles/statistics.ts';
import type { StoredSpan, TraceSummary } from '#shared/domain/spans/summary.ts';
import { storedSpan as aStoredSpan } from '../../support/spans.ts';
import { traceSummary } from '../analytics/fixtures.ts';

export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const MINUTE = 60_000;
export const settings = DEFAULT_LEARNING_SETTINGS;

/** How one synthetic trace behaves. */
export interface Shape {
  tools?: string[];
  /** The error type of a failed tool call (the last tool fails), or of the root when there is no tool. */
  errorType?: string;
  durationMs?: number;
  cost?: number;
  sessionId?: string;
  name?: string;
}

export interface AgentTrace {
  summary: TraceSummary;
  spans: StoredSpan[];
}

export const storedSpan = (over: Partial<StoredSpan>): StoredSpan =>
  aStoredSpan({ traceId: 't', spanId: 's', name: 'run', kind: 'agent', agentName: 'bot', startTimeMs: 0, endTimeMs: 0, durationMs: 0, ...over });

export function agentTrace(traceId: string, startTimeMs: number, shape: Shape = {}): AgentTrace {
  const { tools = ['search', 'answer'], errorType, durationMs = 1000, cost = 0.002, sessionId = null, name = 'answer question' } = shape;
  const failed = errorType !== undefined;
  const endTimeMs = startTimeMs + durationMs;
  const toolSpans = tools.map((tool, i) =>
    storedSpan({
      traceId,
      spanId: `tool-${i}`,
      parentSpanId: 'root',
      name: tool,
      kind: 'tool',
      toolName: tool,
      startTimeMs: startTimeMs + i + 1,
      endTimeMs: startTimeMs + i + 2,
      status: failed && i === tools.length - 1 ? 'error' : 'ok',
      errorType: failed && i === tools.length - 1 ? errorType : null,
    }),
  );
  const rootFails = failed && tools.length === 0;
  const root = storedSpan({
    traceId,
    spanId: 'root',
    name,
    startTimeMs,
    endTimeMs,
    status: failed ? 'error' : 'ok',
    errorType: rootFails ? errorType : null,
    cost,
    sessionId,
  });
  const summary = traceSummary({
    traceId,
    name,
    startTimeMs,
    endTimeMs,
    durationMs,
    status: failed ? 'error' : 'ok',
    errorCount: failed ? 1 : 0,
    cost,
    sessionId,
    spanCount: tools.length + 1,
    inputTokens: 100,
    outputTokens: 50,
    totalTokens: 150,
  });
  return { summary, spans: [root, ...toolSpans] };
}

/** An agent's traces over time; evidence and measurements are read from it as the store would give them. */
export class AgentWorld {
  readonly traces: AgentTrace[] = [];
  private n = 0;

  /** One trace every `everyMs` in [fromMs, toMs), shaped by its index. */
  emit(fromMs: number, toMs: number, everyMs: number, shape: (i: number) => Shape = () => ({})): this {
    for (let at = fromMs, i = 0; at < toMs; at += everyMs, i++) this.traces.push(agentTrace(`t${++this.n}`, at, shape(i)));
    return this;
  }

  between(startMs: number, endMs: number): AgentTrace[] {
    return this.traces.filter((t) => t.summary.startTimeMs >= startMs && t.summary.startTimeMs < endMs);
  }

  evidence(startMs: number, endMs: number): LearningEvidence {
    const traces = this.between(startMs, endMs);
    const summaries = traces.map((t) => t.summary);
    return {
      startMs,
      endMs,
      overall: rollupOf(summaries),
      hourly: rollupsByBucket(summaries, 'hour'),
      sample: traces.map((t) => sampleTrace(t.summary, t.spans)),
    };
  }

  measure(startMs: number, endMs: number): WindowMeasurement {
    const traces = this.between(startMs, endMs);
    return measureWindow(
      startMs,
      endMs,
      rollupOf(traces.map((t) => t.summary)),
      traces.map((t) => sampleTrace(t.summary, t.spans)),
    );
  }
}

export function profileOf(evidence: LearningEvidence, now: Date): AgentProfile {
  const statistics = profileStatistics(evidence);
  return assembleProfile(statistics, templateNarrative({ agent: { name: 'bot', description: '' }, statistics }), 'template', now);
}

/** A fake clock the tests move by hand. */
export function fakeClock(start: string) {
  let now = new Date(start);
  return {
    now: () => now,
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
      return now;
    },
    set(at: Date | string) {
      now = new Date(at);
      return now;
    },
  };
}
