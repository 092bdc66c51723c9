import type { LlmAlertType } from '../../alerts/config.ts';
import { type Judge, labelFor } from '../judge.ts';
import type { Trajectory } from '../trajectory.ts';
import { type Finding, round2 } from './common.ts';
import { judgeHallucination } from './hallucination.ts';
import { judgeNsfw } from './nsfw.ts';
import { judgeQuality } from './quality.ts';
import { judgeStuck } from './stuck.ts';

const HEURISTICS: Record<LlmAlertType, (t: Trajectory) => Finding> = {
  hallucination: judgeHallucination,
  nsfw: judgeNsfw,
  stuck: judgeStuck,
  quality: judgeQuality,
};

/**
 * The local judge: deterministic heuristics, no model and no cost. It says so in every reasoning,
 * because it checks surface patterns (repeats, a lexicon, shared words, figures found in the inputs),
 * not meaning; its measured precision and recall are in docs/evaluation.md.
 */
export const builtinJudge: Judge = {
  name: 'builtin',
  async judge(type, trajectory) {
    const { score, reasoning } = HEURISTICS[type](trajectory);
    const rounded = round2(score);
    return { verdict: { score: rounded, label: labelFor(type, rounded), reasoning: `Built-in heuristic: ${reasoning}.` }, usage: null };
  },
};
