import { truncateText } from '../ingest/messages.ts';
import type { SpanKind } from '../spans/model.ts';
import type { StoredSpan, TraceSummary } from '../spans/summary.ts';
import { orderSpans } from '../spans/views.ts';

/** One span of the run as the judge reads it: a tool call with its arguments and result, an LLM call, a retrieval… */
export interface TrajectoryStep {
  kind: SpanKind;
  name: string;
  tool: string | null;
  input: string | null;
  output: string | null;
  /** `errorType: statusMessage` of a failed span. */
  error: string | null;
  /** Why an LLM call stopped (`gen_ai.response.finish_reasons`), e.g. `length` when it ran out of tokens. */
  finishReason: string | null;
}

/** The whole run, from the user's input through every step to the final output. */
export interface Trajectory {
  agentName: string | null;
  /**
   * What the agent's behavioural profile says is normal for it, and this trace's anomalies against it
   * (`profileContext`); null before the agent has a profile.
   */
  agentProfile: string | null;
  userInput: string | null;
  steps: TrajectoryStep[];
  /** Steps left out to fit the token budget: the oldest ones between the user input and the final output. */
  omittedSteps: number;
  finalOutput: string | null;
}

/** The usual rule of thumb for English text and JSON; the judge's prompt overhead is small beside it. */
const CHARS_PER_TOKEN = 4;
export const estimateTokens = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/**
 * Share of the budget one text may take, so the user input and the final output (which are always
 * kept) leave room for steps.
 */
const FIELD_SHARE = 1 / 8;

const withoutNulls = (value: object) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

/** What the judge reads: the trajectory as JSON, without empty fields. */
export const serializeTrajectory = (t: Trajectory): string =>
  JSON.stringify({
    ...withoutNulls({ agent: t.agentName, agentProfile: t.agentProfile, userInput: t.userInput }),
    steps: t.steps.map(withoutNulls),
    omittedSteps: t.omittedSteps,
    ...withoutNulls({ finalOutput: t.finalOutput }),
  });

function finishReasonOf(span: StoredSpan): string | null {
  const reasons = span.attributes['gen_ai.response.finish_reasons'];
  const first = Array.isArray(reasons) ? reasons[0] : reasons;
  return typeof first === 'string' ? first : null;
}

function stepOf(span: StoredSpan, maxFieldChars: number): TrajectoryStep {
  const failed = span.status === 'error';
  return {
    kind: span.kind,
    name: span.name,
    tool: span.toolName,
    input: truncateText(span.input, maxFieldChars),
    output: truncateText(span.output, maxFieldChars),
    error: failed ? [span.errorType, span.statusMessage].filter(Boolean).join(': ') || 'failed' : null,
    finishReason: finishReasonOf(span),
  };
}

/**
 * The trace as the judge sees it, within `maxTokens` (estimated): spans in execution order (each
 * parent before its children), the root's input and output as the user input and final output (else
 * the first input and the last output in the trace), long texts cut with a marker, and — when the
 * whole run is still too long — the oldest steps left out first, so the start and the end survive.
 */
export function buildTrajectory(summary: TraceSummary, spans: readonly StoredSpan[], maxTokens: number, agentProfile: string | null = null): Trajectory {
  const maxFieldChars = Math.floor(maxTokens * CHARS_PER_TOKEN * FIELD_SHARE);
  const ordered = orderSpans(spans).map(({ span }) => span);
  const root = ordered.find((s) => s.spanId === summary.rootSpanId);
  const byEnd = [...ordered].sort((a, b) => (a.endTimeMs ?? a.startTimeMs) - (b.endTimeMs ?? b.startTimeMs));
  const userInput = root?.input ?? ordered.find((s) => s.input !== null)?.input ?? null;
  const finalOutput = root?.output ?? byEnd.findLast((s) => s.output !== null)?.output ?? null;
  const whole: Trajectory = {
    agentName: summary.agentName,
    agentProfile,
    userInput: truncateText(userInput, maxFieldChars),
    steps: ordered.filter((s) => s !== root).map((s) => stepOf(s, maxFieldChars)),
    omittedSteps: 0,
    finalOutput: truncateText(finalOutput, maxFieldChars),
  };
  return fitToBudget(whole, maxTokens);
}

function fitToBudget(t: Trajectory, maxTokens: number): Trajectory {
  const stepTokens = t.steps.map((s) => estimateTokens(JSON.stringify(withoutNulls(s))) + 1);
  let tokens = estimateTokens(serializeTrajectory(t));
  let dropped = 0;
  while (tokens > maxTokens && dropped < t.steps.length) tokens -= stepTokens[dropped++]!;
  return dropped === 0 ? t : { ...t, steps: t.steps.slice(dropped), omittedSteps: dropped };
}
