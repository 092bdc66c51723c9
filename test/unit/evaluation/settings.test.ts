import { describe, expect, it } from 'vitest';
import { parseConfig } from '#shared/config.ts';

describe('judge settings', () => {
  it('default to the built-in judge, a small Bedrock model, 1000 evaluations a day and 6000 input tokens', () => {
    expect(parseConfig({ TABLE_NAME: 't' }).evaluation).toEqual({
      judge: 'builtin',
      bedrockModelId: 'amazon.nova-micro-v1:0',
      dailyBudget: 1000,
      maxInputTokens: 6000,
    });
  });

  it('take Bedrock with a model, a budget and a token budget from the environment', () => {
    const env = {
      TABLE_NAME: 't',
      JUDGE: 'bedrock',
      BEDROCK_MODEL_ID: 'us.amazon.nova-lite-v1:0',
      EVALUATION_DAILY_BUDGET: '50',
      JUDGE_MAX_INPUT_TOKENS: '2000',
    };
    expect(parseConfig(env).evaluation).toEqual({ judge: 'bedrock', bedrockModelId: 'us.amazon.nova-lite-v1:0', dailyBudget: 50, maxInputTokens: 2000 });
  });

  it('fail the start naming a bad value', () => {
    expect(() => parseConfig({ TABLE_NAME: 't', JUDGE: 'gpt' })).toThrow(/JUDGE/);
    expect(() => parseConfig({ TABLE_NAME: 't', EVALUATION_DAILY_BUDGET: '0' })).toThrow(/EVALUATION_DAILY_BUDGET/);
  });
});
