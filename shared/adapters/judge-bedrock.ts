import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { type Judge, JudgeAnswerError, type JudgeUsage } from '../domain/evaluation/judge.ts';
import { correctionPrompt, judgePrompt, parseVerdict } from '../domain/evaluation/prompts.ts';
import { bedrockConverse, bedrockRuntimeClient, type Converse, type ConverseMessage } from './bedrock-converse.ts';

/** A verdict is a short JSON object; this leaves room for the reasoning and nothing more. */
const MAX_ANSWER_TOKENS = 400;
/** Retries of a busy Bedrock inside one attempt of the job; the queue's redelivery is the slower backoff after them. */
const THROTTLE_RETRIES = 3;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 4000;
const REQUEST_TIMEOUT_MS = 20_000;

/** Exponential, with half of each delay random so that parallel evaluations do not retry in step. */
export const backoffMs = (attempt: number, random: () => number = Math.random): number => {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
};

export interface BedrockJudgeOptions {
  modelId: string;
  converse?: Converse;
}

/**
 * The judge's client: throttling, a model not ready and a transient failure (500, 502, 503, 504, the
 * network) are retried by the SDK's retry strategy, THROTTLE_RETRIES times with the backoff above;
 * everything else surfaces to the queue at once.
 */
export const judgeClient = () =>
  bedrockRuntimeClient({
    attempts: THROTTLE_RETRIES + 1,
    attemptTimeoutMs: REQUEST_TIMEOUT_MS,
    retryStrategy: new ConfiguredRetryStrategy(THROTTLE_RETRIES + 1, (attempt) => backoffMs(attempt - 1)),
  });

/**
 * The judge on Amazon Bedrock, through the Converse API: one call per type with that type's prompt,
 * temperature 0; an answer that is not a valid verdict is sent back once with what was wrong, a second
 * invalid one throws `JudgeAnswerError`. Access denied, a missing model or a validation error throws
 * as it is; the job is then retried by the queue and dead-lettered in the end, never dropped.
 */
export function bedrockJudge({ modelId, converse = bedrockConverse(judgeClient()) }: BedrockJudgeOptions): Judge {
  const ask = (system: string, messages: ConverseMessage[]) => converse(modelId, { system, messages, maxTokens: MAX_ANSWER_TOKENS, temperature: 0 });

  return {
    name: `bedrock:${modelId}`,
    async judge(type, trajectory) {
      const prompt = judgePrompt(type, trajectory);
      const messages: ConverseMessage[] = [{ role: 'user', content: [{ text: prompt.user }] }];
      const usage: JudgeUsage = { model: modelId, inputTokens: 0, outputTokens: 0 };
      let problem = '';
      for (let attempt = 0; attempt < 2; attempt++) {
        const output = await ask(prompt.system, messages);
        usage.inputTokens += output.inputTokens;
        usage.outputTokens += output.outputTokens;
        const answer = output.text.trim();
        const parsed = parseVerdict(type, answer);
        if (parsed.ok) return { verdict: parsed.verdict, usage };
        problem = parsed.problem;
        messages.push(
          { role: 'assistant', content: [{ text: answer || '(no answer)' }] },
          { role: 'user', content: [{ text: correctionPrompt(type, problem) }] },
        );
      }
      throw new JudgeAnswerError(`${modelId} gave no valid ${type} verdict in two answers (${problem})`, usage);
    },
  };
}
