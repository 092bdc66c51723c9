import { MAX_INSIGHTS, MIN_INSIGHTS, type Narrator, profileNarrative } from '../domain/profiles/narrative.ts';
import { bedrockConverse, bedrockRuntimeClient, type Converse } from './bedrock-converse.ts';
import '../schemas/messages.ts';

/** A narrative is a few sentences; a regenerate request waits for it, so it must come quickly or not at all. */
const MAX_ANSWER_TOKENS = 800;
const REQUEST_TIMEOUT_MS = 5000;

const NARRATOR_SYSTEM_PROMPT = [
  'You describe how an AI agent normally behaves, for the engineers who operate it.',
  "You receive the agent's name, its description and statistics learned from its traces (rates are fractions 0-1, times in milliseconds, hours in UTC, costs in US dollars).",
  'Answer with one JSON object and nothing else:',
  '{"useCase": "<one sentence: what the agent is used for>",',
  ' "behaviouralSummary": "<2 to 4 sentences: its normal volume, latency, tool use and errors>",',
  ` "insights": ["<${MIN_INSIGHTS} to ${MAX_INSIGHTS} short observations an operator should know>"]}`,
  'Ground every statement in the statistics; do not invent numbers, tools or error types.',
].join('\n');

/** A short timeout and no retries: the template takes over on failure. */
const narratorConverse = (): Converse => bedrockConverse(bedrockRuntimeClient({ attempts: 1, attemptTimeoutMs: REQUEST_TIMEOUT_MS }));

/** The JSON object in an answer, also when the model wrapped it in prose or a code fence. */
function jsonIn(answer: string): unknown {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start === -1 || end < start) throw new Error('the narrator answered no JSON object');
  return JSON.parse(answer.slice(start, end + 1));
}

/**
 * The profile narrative from a Bedrock model through the Converse API, temperature 0. Throws on any
 * failure or invalid answer; the learning cycle then uses the template narrative.
 */
export function bedrockNarrator(modelId: string, converse: Converse = narratorConverse()): Narrator {
  return {
    name: `bedrock:${modelId}`,
    async narrate({ agent, statistics }) {
      const answer = await converse(modelId, {
        system: NARRATOR_SYSTEM_PROMPT,
        messages: [{ role: 'user', content: [{ text: JSON.stringify({ agent, statistics }) }] }],
        maxTokens: MAX_ANSWER_TOKENS,
        temperature: 0,
      });
      return profileNarrative.parse(jsonIn(answer.text));
    },
  };
}
