import { describe, expect, it } from 'vitest';
import { estimateCost, priceTable } from '#shared/domain/pricing/estimate.ts';
import { MODEL_PRICES } from '#shared/domain/pricing/model-prices.ts';

const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0) => ({ inputTokens, outputTokens, cachedInputTokens });

describe('model prices', () => {
  const table = priceTable();
  it.each([
    ['gpt-4o-2024-08-06', 2.5],
    ['gpt-4o-mini-2024-07-18', 0.15],
    ['gpt-4.1-mini', 0.4],
    ['gpt-5-mini-2025-08-07', 0.25],
    ['gpt-4', 30],
    ['o4-mini', 1.1],
    ['claude-sonnet-4-5-20250929', 3],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 3],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 0.8],
    ['claude-opus-4-1-20250805', 15],
    ['amazon.nova-pro-v1:0', 0.8],
    ['us.amazon.nova-micro-v1:0', 0.035],
    ['gemini-2.5-flash-lite', 0.1],
    ['gemini-2.5-pro', 1.25],
    ['mistral-large-latest', 2],
    ['mistral.mistral-small-2402-v1:0', 0.1],
  ])('%s is priced at $%s per million input tokens', (model, input) => {
    expect(table.priceOf(model)?.inputPerMTok).toBe(input);
  });

  it('every pattern compiles', () => {
    for (const entry of MODEL_PRICES) expect(() => new RegExp(entry.pattern, 'i')).not.toThrow();
  });
});

describe('cost estimation', () => {
  it('charges input, output and cached input at their prices', () => {
    expect(estimateCost('gpt-4o', usage(1_000_000, 1_000_000))).toBe(12.5);
    expect(estimateCost('gpt-4o', usage(1000, 500))).toBe(0.0075);
    // 400 of 1000 input tokens from the cache: 600 × 2.5 + 400 × 1.25 per million.
    expect(estimateCost('gpt-4o', usage(1000, 0, 400))).toBe(0.002);
  });

  it('is null for an unknown model, a missing model or no tokens', () => {
    expect(estimateCost('my-own-finetune', usage(10, 10))).toBeNull();
    expect(estimateCost(null, usage(10, 10))).toBeNull();
    expect(estimateCost('gpt-4o', usage(0, 0))).toBeNull();
  });

  it('lets an override table price a model first', () => {
    const custom = priceTable([{ pattern: 'gpt-4o', provider: 'openai', inputPerMTok: 1, outputPerMTok: 1 }, ...MODEL_PRICES]);
    expect(estimateCost('gpt-4o', usage(1_000_000, 0), custom)).toBe(1);
  });
});
