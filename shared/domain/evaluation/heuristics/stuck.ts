import type { Trajectory, TrajectoryStep } from '../trajectory.ts';
import { type Finding, listed, normalized, quoted } from './common.ts';

/** Identical calls seen this often are a loop rather than a retry. */
const REPEATED_CALLS = 3;
/** Outputs shorter than this ("ok", "{}") repeat in healthy runs. */
const MIN_REPEATED_OUTPUT_CHARS = 20;
const MAX_CYCLE_LENGTH = 5;
const LOOP_REPETITIONS = 3;

const callee = (s: TrajectoryStep) => s.tool ?? s.name;
/** What makes two calls the same: what was called and with what. */
const callKey = (s: TrajectoryStep) => `${s.kind}\u0000${callee(s)}\u0000${normalized(s.input ?? '')}`;

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/**
 * The same call with the same arguments, made again and again. A retry after failures counts less,
 * and so does polling: the same call whose results change is waiting for something, not looping.
 */
function repeatedCalls(steps: readonly TrajectoryStep[]): Finding | undefined {
  const calls = steps.filter((s) => s.input !== null && s.kind !== 'agent' && s.kind !== 'chain');
  const [top] = [...countBy(calls, callKey).values()].sort((a, b) => b.length - a.length);
  if (!top || top.length < 2) return undefined;
  const n = top.length;
  const what = `${n} identical calls to ${callee(top[0]!)} with the same arguments`;
  const retriedFailures = top.slice(0, -1).every((s) => s.error !== null) && top[n - 1]!.error === null;
  if (retriedFailures && n <= REPEATED_CALLS) return { score: 0.3, reasoning: `${what}, retries after failures that then succeeded` };
  const results = new Set(top.map((s) => normalized(s.output ?? '')));
  if (results.size > 1 && top[n - 1]!.error === null) return { score: 0.3, reasoning: `${what}, polling: the results changed` };
  return { score: n >= REPEATED_CALLS ? Math.min(0.95, 0.7 + 0.1 * (n - REPEATED_CALLS)) : 0.4, reasoning: what };
}

/** The same LLM output produced again: the model is not taking in what happened since. */
function repeatedOutputs(steps: readonly TrajectoryStep[]): Finding | undefined {
  const outputs = steps.filter((s) => s.kind === 'llm' && (s.output?.trim().length ?? 0) >= MIN_REPEATED_OUTPUT_CHARS);
  const [top] = [...countBy(outputs, (s) => normalized(s.output!)).values()].sort((a, b) => b.length - a.length);
  if (!top || top.length < 2) return undefined;
  const what = `the same LLM output ${top.length} times (${quoted(top[0]!.output!.trim())})`;
  return { score: top.length >= REPEATED_CALLS ? 0.8 : 0.4, reasoning: what };
}

/** Whether a block of steps is not itself a shorter block repeated (a → a is "a" twice, not a cycle of two). */
const isPrimitive = (block: readonly string[]) => !block.some((_, d) => d > 0 && block.length % d === 0 && block.every((k, i) => k === block[i % d]));

/**
 * A cycle of up to five steps (same callee, same input) repeated back to back, such as
 * search → read → search → read → search → read. It also finds a step repeated in a row when the
 * spans carry no input, which repeatedCalls cannot compare.
 */
function loop(steps: readonly TrajectoryStep[]): Finding | undefined {
  const keys = steps.map(callKey);
  let best: { length: number; repetitions: number; start: number } | undefined;
  for (let length = 1; length <= MAX_CYCLE_LENGTH; length++) {
    for (let start = 0; start + 2 * length <= keys.length; start++) {
      const block = keys.slice(start, start + length);
      if (!isPrimitive(block) || (length === 1 && steps[start]!.input !== null)) continue;
      let repetitions = 1;
      while (keys.slice(start + repetitions * length, start + (repetitions + 1) * length).join('\u0001') === block.join('\u0001')) repetitions++;
      if (repetitions > (best?.repetitions ?? 1)) best = { length, repetitions, start };
    }
  }
  if (!best) return undefined;
  const cycle = steps.slice(best.start, best.start + best.length).map(callee);
  const what =
    best.length === 1
      ? `${cycle[0]} ${best.repetitions} times in a row`
      : `a cycle of ${best.length} steps (${cycle.join(' → ')}) repeated ${best.repetitions} times`;
  return { score: best.repetitions >= LOOP_REPETITIONS ? Math.min(0.95, 0.75 + 0.05 * (best.repetitions - LOOP_REPETITIONS)) : 0.35, reasoning: what };
}

export function judgeStuck(t: Trajectory): Finding {
  const findings = [repeatedCalls(t.steps), repeatedOutputs(t.steps), loop(t.steps)].filter((f) => f !== undefined);
  if (findings.length === 0) return { score: 0, reasoning: `no repeated calls, outputs or loops among ${t.steps.length} steps` };
  return { score: Math.max(...findings.map((f) => f.score)), reasoning: listed(findings.map((f) => f.reasoning)) };
}
