import type { Trajectory } from '../trajectory.ts';
import { contentWordsOf, type Finding, listed, round2 } from './common.ts';

const REFUSAL =
  /\b(?:i(?:'m| am) (?:sorry|afraid),? (?:but )?i (?:can(?:'|no)?t|am unable|won't)|i (?:can(?:'|no)?t|won't|will not|am unable to|am not able to) (?:help|assist|answer|provide|comply|do that|share)|as an ai(?: language model)?,? i|i(?:'m| am) not (?:able|allowed|permitted) to (?:help|assist|answer|provide|share))\b/i;
/** How a model reports running out of output tokens. */
const TOKEN_LIMIT_REASONS = new Set(['length', 'max_tokens', 'max_output_tokens', 'model_length']);
/** The marker ingestion leaves where it cut a long text. */
const CUT_MARKER = /…\[truncated \d+ characters\]$/;
/** Words and marks no finished sentence ends on ("… for" or "… that" can, so they are not here). */
const DANGLING_END = /(?:[,:;(\-–]|\b(?:and|or|but|the|to|of|with|because|which))$/i;
/** Below this many content words an input says too little to judge an answer off-topic. */
const MIN_TOPIC_WORDS = 3;

function truncation(t: Trajectory, answer: string): string | undefined {
  const lastLlm = t.steps.findLast((s) => s.kind === 'llm');
  if (lastLlm?.finishReason && TOKEN_LIMIT_REASONS.has(lastLlm.finishReason.toLowerCase()))
    return `the last LLM call stopped at its token limit (${lastLlm.finishReason})`;
  if (CUT_MARKER.test(answer)) return 'the answer was cut for length';
  if (DANGLING_END.test(answer) || (answer.match(/```/g)?.length ?? 0) % 2 === 1) return 'the answer stops mid-sentence';
  return undefined;
}

/**
 * Share of the answer's content words found in the user input or in what the tools returned: an
 * answer that shares none talks about something else. Crude (a paraphrase shares no words either).
 */
function topicOverlap(t: Trajectory, answer: string): number | undefined {
  const asked = contentWordsOf(t.userInput ?? '');
  const said = contentWordsOf(answer);
  if (asked.size < MIN_TOPIC_WORDS || said.size < MIN_TOPIC_WORDS) return undefined;
  const context = new Set([...asked, ...t.steps.flatMap((s) => (s.kind === 'llm' ? [] : [...contentWordsOf(`${s.input ?? ''} ${s.output ?? ''}`)]))]);
  return [...said].filter((w) => context.has(w)).length / said.size;
}

export function judgeQuality(t: Trajectory): Finding {
  if (t.userInput === null && t.finalOutput === null) return { score: 0, reasoning: 'the trace records no input or output to judge' };
  const answer = t.finalOutput?.trim() ?? '';
  if (answer === '') return { score: 0.95, reasoning: t.finalOutput === null ? 'the trace has no final output' : 'the final output is empty' };
  const problems: Array<{ score: number; reasoning: string }> = [];
  if (REFUSAL.test(answer)) problems.push({ score: 0.85, reasoning: 'the answer is a refusal' });
  const cut = truncation(t, answer);
  if (cut) problems.push({ score: 0.8, reasoning: cut });
  const overlap = topicOverlap(t, answer);
  if (overlap === 0) problems.push({ score: 0.75, reasoning: 'the answer shares no content word with the user input or the tool results (off-topic)' });
  else if (overlap !== undefined && overlap < 0.1)
    problems.push({ score: 0.5, reasoning: `only ${round2(overlap * 100)}% of the answer's content words appear in the user input or tool results` });
  if (problems.length === 0) return { score: 0.05, reasoning: 'the answer is non-empty, no refusal, complete and on the topic of the input' };
  return { score: Math.max(...problems.map((p) => p.score)), reasoning: listed(problems.map((p) => p.reasoning)) };
}
