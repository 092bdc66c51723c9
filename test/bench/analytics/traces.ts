import { BUCKET_MS } from '#shared/domain/analytics/buckets.ts';
import { estimateCost } from '#shared/domain/pricing/estimate.ts';
import type { TraceSummary } from '#shared/domain/spans/summary.ts';
import type { Random } from '../../support/random.ts';

export interface BenchAgent {
  id: string;
  name: string;
  task: string;
  models: readonly string[];
}

/** Agents of the seeded tenant: their names, tasks and the models they call (all in the price table). */
const AGENT_PROFILES: ReadonlyArray<Omit<BenchAgent, 'id'>> = [
  { name: 'support-bot', task: 'answer ticket', models: ['gpt-4o-mini', 'claude-sonnet-4-5'] },
  { name: 'trip-planner', task: 'plan trip', models: ['gpt-4.1', 'gemini-2.5-flash'] },
  { name: 'code-reviewer', task: 'review pull request', models: ['claude-sonnet-4-5', 'gpt-5-mini'] },
  { name: 'research-assistant', task: 'research question', models: ['amazon.nova-pro-v1:0', 'mistral-large-latest'] },
  { name: 'sales-router', task: 'route lead', models: ['gpt-4o-mini', 'claude-haiku-4-5'] },
];

/**
 * `count` agents: the profiles above, then the same profiles again under numbered names
 * (`support-bot-2`, …), so that a tenant with many agents has them all equally busy.
 */
export function agentProfiles(count: number): Array<Omit<BenchAgent, 'id'>> {
  return Array.from({ length: count }, (_, i) => {
    const profile = AGENT_PROFILES[i % AGENT_PROFILES.length]!;
    const round = Math.floor(i / AGENT_PROFILES.length);
    return round === 0 ? profile : { ...profile, name: `${profile.name}-${round + 1}` };
  });
}

/** Traces that call no model at all (tools only): no tokens, no cost, a null model in the analytics. */
const NO_MODEL_RATE = 0.03;
const ERROR_RATE = 0.04;
/** Traces far slower than the rest, so that p99 sits apart from p95. */
const SLOW_RATE = 0.01;

const hex32 = (random: Random) => ((random.next() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
const traceIdOf = (random: Random) => hex32(random) + hex32(random) + hex32(random) + hex32(random);

/** A finished trace as the worker would summarise it; durations are whole milliseconds. */
function traceSummary(random: Random, agent: BenchAgent, startTimeMs: number): TraceSummary {
  const model = random.chance(NO_MODEL_RATE) ? null : random.pick(agent.models);
  const inputTokens = model ? random.int(200, 8000) : 0;
  const outputTokens = model ? random.int(20, 1500) : 0;
  const durationMs = Math.round(random.chance(SLOW_RATE) ? random.logUniform(30_000, 120_000) : random.logUniform(80, 30_000));
  const failed = random.chance(ERROR_RATE);
  return {
    traceId: traceIdOf(random),
    agentId: agent.id,
    agentName: agent.name,
    name: agent.task,
    rootSpanId: hex32(random) + hex32(random),
    status: failed ? 'error' : 'ok',
    startTimeMs,
    endTimeMs: startTimeMs + durationMs,
    durationMs,
    spanCount: random.int(2, 8),
    errorCount: failed ? 1 : 0,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cost: estimateCost(model, { inputTokens, outputTokens, cachedInputTokens: null }) ?? 0,
    model,
    models: model ? [model] : [],
    toolNames: [],
    errorTypes: failed ? ['ToolError'] : [],
    tags: [],
    metadata: {},
    sessionId: null,
    userId: `user-${random.int(1, 2000)}`,
    experimentId: null,
    variant: null,
    complete: true,
    closedAtMs: null,
  };
}

/**
 * `count` traces spread evenly over the minutes of [startMs, endMs) (both whole minutes), made one
 * UTC day at a time and in time order, so that a day's traces can be written and forgotten.
 */
export function* tracesByDay(random: Random, agents: readonly BenchAgent[], count: number, startMs: number, endMs: number): Generator<TraceSummary[]> {
  const minutes = (endMs - startMs) / BUCKET_MS.minute;
  let day: TraceSummary[] = [];
  for (let m = 0; m < minutes; m++) {
    const minuteStartMs = startMs + m * BUCKET_MS.minute;
    if (minuteStartMs % BUCKET_MS.day === 0 && day.length > 0) {
      yield day;
      day = [];
    }
    const inMinute = Math.floor(((m + 1) * count) / minutes) - Math.floor((m * count) / minutes);
    for (let i = 0; i < inMinute; i++) day.push(traceSummary(random, random.pick(agents), minuteStartMs + random.int(0, BUCKET_MS.minute - 1)));
  }
  if (day.length > 0) yield day;
}
