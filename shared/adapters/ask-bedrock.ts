import { BedrockRuntimeClient, ConverseCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import * as z from 'zod/mini';
import { mayPassLater } from '../aws-errors.ts';
import { ServiceUnavailableError } from '../domain/errors.ts';
import type { AskContext, QueryTranslator, Translation } from '../domain/lake/ask.ts';
import { parseSearchQuery } from '../domain/lake/query.ts';
import { clientSettings } from './aws-clients.ts';

/**
 * Questions turned into the search language by a Bedrock model (Converse, temperature 0). The model
 * answers JSON; the answer is checked against the schema and the query grammar, and an invalid one is
 * sent back once with what was wrong. A second invalid answer means the question was not understood.
 * Bedrock busy or failing (throttling, its own fault, the network) answers 503 to retry; a refusal of
 * ours (access, a wrong model id) surfaces as the SDK's exception, a fault answered 500 without detail.
 */
const SYSTEM = `You turn a question about an AI agent's traces into a search query for an observability service.
Answer with one JSON object and nothing else:
{"q": "<query>", "startDate": "<ISO 8601 UTC or null>", "endDate": "<ISO 8601 UTC or null>"}
or, when the question is not about finding traces: {"understood": false, "reason": "<why>"}.

The query language: terms separated by spaces, all must match.
- word: a whole word anywhere in the trace's text; word* matches a prefix. Prefer prefixes for nouns (refund* finds refunds).
- "a phrase": these words in this order.
- agent:<name>, model:<name>, tool:<name> (a trailing * matches a prefix), session:<id>, user:<id>
- status:ok or status:error (error = the run failed)
- error:<word> or error:"<phrase>": words in the error types and messages
- cost>N (US dollars), duration>N (ms; or with s, m, h: duration>5s), tokens>N (total tokens; 10k, 2m); also >=, <, <=
- attr.<key>:<value>: a span attribute
- a leading - excludes: -status:ok
Quote values with spaces. Use only names from the context when the question names an agent, model or tool that is listed there.
Dates: resolve relative times ("yesterday", "last 2 hours") against "now" in the context; null when the question names no time.`;

const answerSchema = z.union([
  z.object({ q: z.string().check(z.maxLength(1000)), startDate: z.nullable(z.optional(z.string())), endDate: z.nullable(z.optional(z.string())) }),
  z.object({ understood: z.literal(false), reason: z.string() }),
]);

/** The JSON object in a model's answer (models sometimes wrap it in prose or a code fence). */
const jsonIn = (text: string): unknown => {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the answer holds no JSON object');
  return JSON.parse(text.slice(start, end + 1));
};

const dateOf = (value: string | null | undefined, name: string): Date | undefined => {
  if (value === null || value === undefined || value === '') return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`${name} "${value}" is not an ISO 8601 date`);
  return date;
};

/** Reads one answer: the translation, or throws what is wrong with it (for the repair round). */
function readAnswer(text: string): Translation {
  const answer = z.parse(answerSchema, jsonIn(text));
  if ('understood' in answer) return { understood: false, reason: answer.reason };
  parseSearchQuery(answer.q);
  const startDate = dateOf(answer.startDate, 'startDate');
  const endDate = dateOf(answer.endDate, 'endDate');
  if (startDate && endDate && endDate < startDate) throw new Error('endDate is before startDate');
  return { understood: true, q: answer.q, ...(startDate && { startDate }), ...(endDate && { endDate }), ignored: [] };
}

/**
 * Both rounds together, retries included: the search the question turns into must still fit in the
 * route's 28 s after it. Past it the call is abandoned and the question answered 503, to ask again.
 */
export const ASK_TRANSLATION_DEADLINE_MS = 12_000;

export function bedrockTranslator(
  modelId: string,
  client: BedrockRuntimeClient = new BedrockRuntimeClient(clientSettings({ attempts: 2, attemptTimeoutMs: 8000 })),
  deadlineMs = ASK_TRANSLATION_DEADLINE_MS,
): QueryTranslator {
  return {
    name: 'bedrock',
    async translate(question: string, context: AskContext): Promise<Translation> {
      const facts = {
        now: context.now.toISOString(),
        agents: context.agents.slice(0, 200).map((a) => a.name),
        models: context.models.slice(0, 100),
        tools: context.tools.slice(0, 200),
      };
      const until = Date.now() + deadlineMs;
      const messages: Message[] = [{ role: 'user', content: [{ text: `Context: ${JSON.stringify(facts)}\nQuestion: ${JSON.stringify(question)}` }] }];
      for (let round = 1; ; round++) {
        const command = new ConverseCommand({ modelId, system: [{ text: SYSTEM }], messages, inferenceConfig: { temperature: 0, maxTokens: 400 } });
        const answer = await client.send(command, { abortSignal: AbortSignal.timeout(Math.max(1, until - Date.now())) }).catch((err: unknown) => {
          throw mayPassLater(err) ? new ServiceUnavailableError(5, { cause: err }) : err;
        });
        const text = (answer.output?.message?.content ?? []).map((block) => block.text ?? '').join('');
        try {
          return readAnswer(text);
        } catch (err) {
          const problem = err instanceof Error ? err.message : String(err);
          if (round === 2) return { understood: false, reason: `the model's answer was not a valid query twice (${problem})` };
          messages.push(
            { role: 'assistant', content: [{ text }] },
            { role: 'user', content: [{ text: `That answer is not valid: ${problem}. Answer again with only the JSON object.` }] },
          );
        }
      }
    },
  };
}
