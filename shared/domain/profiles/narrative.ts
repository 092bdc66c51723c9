import * as z from 'zod/mini';
import { duration, percent, utcHour } from './format.ts';
import type { ProfileNarrative, ProfileStatistics } from './profile.ts';

export interface NarrationInput {
  agent: { name: string; description: string };
  statistics: ProfileStatistics;
}

/** The narrator port: writes the use case, behavioural summary and insights from the statistics. */
export interface Narrator {
  /** Names the narrator in stored profiles, e.g. `template` or `bedrock:amazon.nova-micro-v1:0`. */
  readonly name: string;
  /** Throws when it cannot give a valid narrative; the caller then falls back to the template. */
  narrate(input: NarrationInput): Promise<ProfileNarrative>;
}

export const MIN_INSIGHTS = 3;
export const MAX_INSIGHTS = 5;

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

/** A valid narrative: what a narrator must answer, and what a manual edit may write. */
export const profileNarrative = z.object({
  useCase: text(500),
  behaviouralSummary: text(2000),
  insights: z.array(text(500)).check(z.minLength(MIN_INSIGHTS), z.maxLength(MAX_INSIGHTS)),
}) satisfies z.ZodMiniType<ProfileNarrative>;

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`);

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function useCaseOf(s: ProfileStatistics): string {
  const runs = s.commonTraceNames.length > 0 ? `Runs ${list(quoted(s.commonTraceNames))}` : 'Runs unnamed traces';
  const tools = s.toolPatterns.distribution.slice(0, 3).map((t) => t.tool);
  return `${runs}${tools.length > 0 ? `, calling ${list(tools)}` : ' without tool calls'}.`;
}

function errorSentence({ errorPatterns: e }: ProfileStatistics): string {
  if (e.rate === 0) return 'No traces failed.';
  const type = e.commonTypes[0] ? `, mostly with ${e.commonTypes[0].type}` : '';
  const trend = e.trend === 'rising' || e.trend === 'falling' ? ` and the rate is ${e.trend}` : '';
  return `${percent(e.rate)} of traces fail${type}${trend}.`;
}

/**
 * The tool the most traces call (the distribution is ordered by calls: one polling trace calling a
 * status tool many times would put it first), or none.
 */
const widestTool = (s: ProfileStatistics) =>
  s.toolPatterns.distribution.reduce<ProfileStatistics['toolPatterns']['distribution'][number] | undefined>(
    (widest, tool) => (widest === undefined || tool.traceRate > widest.traceRate ? tool : widest),
    undefined,
  );

function summaryOf(s: ProfileStatistics): string {
  const v = s.volumeCharacteristics;
  const peak = s.temporalPatterns.peakHours[0];
  const sentences = [`About ${v.dailyAverage} traces a day${peak === undefined ? '' : `, busiest around ${utcHour(peak)}`}.`];
  const { p50Ms, p95Ms } = v.typicalLatency;
  if (p50Ms !== null && p95Ms !== null) sentences.push(`Half finish within ${duration(p50Ms)}, 95% within ${duration(p95Ms)}.`);
  sentences.push(errorSentence(s));
  const sequence = s.toolPatterns.commonSequences[0];
  const tool = widestTool(s);
  if (sequence) sentences.push(`Typically calls ${sequence.tools.join(' → ')}.`);
  else if (tool) sentences.push(tool.traceRate >= 0.5 ? `Usually calls ${tool.tool}.` : `Calls ${tool.tool} in ${percent(tool.traceRate)} of traces.`);
  else sentences.push('Calls no tools.');
  return sentences.join(' ');
}

function insightsOf(s: ProfileStatistics): string[] {
  const { errorPatterns: e, volumeCharacteristics: v, toolPatterns: t, temporalPatterns: time } = s;
  const topType = e.commonTypes[0];
  const errors =
    e.rate === 0
      ? `No failures among the ${s.basis.traceCount} traces learned from.`
      : `Error rate is ${percent(e.rate)} (trend: ${e.trend})${topType ? `; the most common error type is ${topType.type} (${percent(topType.share)} of the errors)` : ''}.`;
  const { p50Ms, p95Ms } = v.typicalLatency;
  const latency =
    p50Ms === null || p95Ms === null
      ? 'No trace durations recorded yet.'
      : `p95 latency is ${duration(p95Ms)}, ${p50Ms > 0 ? `${(p95Ms / p50Ms).toFixed(1)}×` : 'far above'} the median of ${duration(p50Ms)}.`;
  const topTool = widestTool(s);
  const tools = topTool
    ? `${topTool.tool} is the tool the most traces call: ${percent(topTool.traceRate)} of them.`
    : 'No tool calls were seen in the sampled traces.';

  const optional: string[] = [];
  const unusual = t.anomalousUsage[0];
  if (unusual) optional.push(`${unusual.tool} stands out: ${unusual.detail}.`);
  if (time.seasonality !== 'none' && time.seasonality !== 'insufficient-data' && time.peakHours[0] !== undefined) {
    optional.push(`Traffic follows a ${time.seasonality.replaceAll('-', ' ')} pattern, peaking around ${utcHour(time.peakHours[0])}.`);
  }
  if (v.costPerTrace > 0) optional.push(`Each trace costs about $${v.costPerTrace.toPrecision(2)} and uses ${Math.round(v.tokensPerTrace)} tokens.`);
  return [errors, latency, tools, ...optional].slice(0, MAX_INSIGHTS);
}

/** The deterministic narrative over the statistics: the default narrator, and the fallback of any other. */
export function templateNarrative({ statistics }: NarrationInput): ProfileNarrative {
  return { useCase: useCaseOf(statistics), behaviouralSummary: summaryOf(statistics), insights: insightsOf(statistics) };
}

export const templateNarrator: Narrator = {
  name: 'template',
  narrate: async (input) => templateNarrative(input),
};
