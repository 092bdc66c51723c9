import * as z from 'zod/mini';
import type { LlmAlertType } from '../alerts/config.ts';
import type { Trajectory } from './trajectory.ts';

/** The judge's labels per type: the harmless one first, the one that alerts second. */
export const LABELS = {
  hallucination: ['grounded', 'hallucinated'],
  nsfw: ['safe', 'nsfw'],
  stuck: ['progressing', 'stuck'],
  quality: ['good', 'poor'],
} as const satisfies Record<LlmAlertType, readonly [string, string]>;

export const MAX_REASONING_CHARS = 1000;

/** What a judge answers for one type; the score is its confidence (0–1) that the problem is present. */
export const verdictSchema = (type: LlmAlertType) =>
  z.strictObject({
    score: z.number().check(z.gte(0), z.lte(1)),
    label: z.enum(LABELS[type]),
    reasoning: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_REASONING_CHARS)),
  });
export type Verdict = z.infer<ReturnType<typeof verdictSchema>>;

/** What the judge's own model consumed for one verdict (none for the built-in judge). */
export interface JudgeUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface Judgement {
  verdict: Verdict;
  usage: JudgeUsage | null;
}

/** The judge's model answered, but never with a valid verdict; what it consumed was still paid for. */
export class JudgeAnswerError extends Error {
  constructor(
    message: string,
    readonly usage: JudgeUsage,
  ) {
    super(message);
    this.name = 'JudgeAnswerError';
  }
}

/** The judge port: the built-in heuristic judge locally, Bedrock on AWS. */
export interface Judge {
  /** Names the judge in stored evaluations, e.g. `builtin` or `bedrock:amazon.nova-micro-v1:0`. */
  readonly name: string;
  /** Throws when no valid verdict could be had, so the queue retries the job and finally dead-letters it. */
  judge(type: LlmAlertType, trajectory: Trajectory): Promise<Judgement>;
}

/** A small, cheap model: the judge answers a short JSON object per type. */
export const DEFAULT_JUDGE_MODEL = 'amazon.nova-micro-v1:0';

export const labelFor = (type: LlmAlertType, score: number): Verdict['label'] => LABELS[type][score >= 0.5 ? 1 : 0];
