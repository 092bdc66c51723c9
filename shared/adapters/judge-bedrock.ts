import { JudgeAnswerError, type Judge, type JudgeUsage } from '../domain/evaluation/judge.ts';
import { correctionPrompt, judgePrompt, parseVerdict } from '../domain/evaluation/prompts.ts';
import { AwsServiceError } from './aws-call.ts';
import { bedrockConverse, type Converse, type ConverseAnswer, type ConverseMessage } from './bedrock-converse.ts';

/** A verdict is a short JSON object; this leaves room for the reasoning and nothing more. */
const MAX_ANSWER_TOKENS = 400;
/** Retries of a throttled call inside one attempt of the job; the queue's redelivery is the slower backoff after them. */
const THROTTLE_RETRIES = 3;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 4000;
const REQUEST_TIMEOUT_MS = 20_000;

/** Exponential, with half of each delay random so that parallel evaluations do not retry in step. */
export const backoffMs = (attempt: number, random: () => number = Math.random): number => {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
};

/** Throttling, a model not ready, an unavailable or failing service: Bedrock's answers that may change on another call. */
const isBusy = (err: unknown) => err instanceof AwsServiceError && err.retryable;

export interface BedrockJudgeOptions {
  modelId: string;
  converse?: Converse;
  sleep?: (ms: number) => Promise<void>;
}

/** One attempt per call: a busy Bedrock is retried here, with backoff, and everything else surfaces to the queue. */
const judgeConverse = (): Converse => bedrockConverse({ attempts: 1, timeoutMs: REQUEST_TIMEOUT_MS });

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The judge on Amazon Bedrock, through the Converse API: one call per type with that type's prompt,
 * temperature 0; an answer that is not a valid verdict is sent back once with what was wrong, a second
 * invalid one throws `JudgeAnswerError`. Access denied, a missing model or a validation error throws
 * as it is; the job is then retried by the queue and dead-lettered in the end, never dropped.
 */
export function bedrockJudge({ modelId, converse = judgeConverse(), sleep = sleepFor }: BedrockJudgeOptions): Judge {
  async function ask(system: string, messages: ConverseMessage[]): Promise<ConverseAnswer> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await converse(modelId, { system, messages, maxTokens: MAX_ANSWER_TOKENS, temperature: 0 });
      } catch (err) {
        if (!isBusy(err) || attempt === THROTTLE_RETRIES) throw err;
        await sleep(backoffMs(attempt));
      }
    }
  }

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
        messages.push({ role: 'assistant', content: [{ text: answer || '(no answer)' }] }, { role: 'user', content: [{ text: correctionPrompt(type, problem) }] });
      }
      throw new JudgeAnswerError(`${modelId} gave no valid ${type} verdict in two answers (${problem})`, usage);
    },
  };
}
