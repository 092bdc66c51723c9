import { describe, expect, it } from 'vitest';
import { createExperimentBody } from '#shared/domain/experiments/definition.ts';
import { parseOrThrow } from '#shared/http/validation.ts';

const valid = {
  name: 'Shorter system prompt',
  variants: [
    { key: 'control', weight: 50 },
    { key: 'short', weight: 50, config: { prompt: 'v2' } },
  ],
  primaryMetric: 'successRate',
};
const parse = (body: unknown) => parseOrThrow(createExperimentBody, body, 'body');

describe('experiment definition', () => {
  it('fills the defaults', () => {
    expect(parse(valid)).toEqual({
      ...valid,
      description: '',
      trafficPercentage: 100,
      variants: [
        { key: 'control', weight: 50, config: {} },
        { key: 'short', weight: 50, config: { prompt: 'v2' } },
      ],
    });
  });

  it('takes decimal weights that sum to 100 despite binary rounding', () => {
    const variants = [
      { key: 'a', weight: 33.33 },
      { key: 'b', weight: 33.33 },
      { key: 'c', weight: 33.34 },
    ];
    expect(parse({ ...valid, variants }).variants).toHaveLength(3);
  });

  it('takes any signal name as the primary metric', () => {
    expect(parse({ ...valid, primaryMetric: 'user.thumbs_up' }).primaryMetric).toBe('user.thumbs_up');
  });

  it.each([
    [
      'weights not summing to 100',
      {
        variants: [
          { key: 'a', weight: 50 },
          { key: 'b', weight: 40 },
        ],
      },
      'variants: weights must sum to 100 (they sum to 90)',
    ],
    ['one variant', { variants: [{ key: 'a', weight: 100 }] }, 'variants: must have 2 to 10 variants'],
    ['eleven variants', { variants: Array.from({ length: 11 }, (_, i) => ({ key: `v${i}`, weight: 100 / 11 })) }, 'variants: must have 2 to 10 variants'],
    [
      'repeated keys',
      {
        variants: [
          { key: 'a', weight: 50 },
          { key: 'a', weight: 50 },
        ],
      },
      'variants: keys must be unique (a repeated)',
    ],
    [
      'a zero weight',
      {
        variants: [
          { key: 'a', weight: 0 },
          { key: 'b', weight: 100 },
        ],
      },
      'variants.0.weight',
    ],
    [
      'a key with spaces',
      {
        variants: [
          { key: 'a b', weight: 50 },
          { key: 'b', weight: 50 },
        ],
      },
      'variants.0.key',
    ],
    ['traffic over 100', { trafficPercentage: 101 }, 'trafficPercentage'],
    ['no primary metric', { primaryMetric: undefined }, 'primaryMetric: is required'],
    [
      'a huge config',
      {
        variants: [
          { key: 'a', weight: 50, config: { blob: 'x'.repeat(17_000) } },
          { key: 'b', weight: 50 },
        ],
      },
      'variants.0.config: must be at most 16 KB',
    ],
  ])('refuses %s, naming the field', (_, change, message) => {
    expect(() => parse({ ...valid, ...change })).toThrow(message);
  });

  // Parsed from text, as a request body is: JSON.parse makes `__proto__` an own key, as an object literal would not.
  it.each([
    ['at the top of a config', '{"__proto__": {"model": "x"}, "prompt": "v2"}', 'variants.1.config.__proto__: is a key name the service cannot keep'],
    ['nested in a config', '{"prompt": {"parts": [{"__proto__": 1}]}}', 'variants.1.config.prompt.parts.0.__proto__: is a key name'],
  ])('refuses a key named __proto__ %s (it was dropped without a word), naming where', (_, config, message) => {
    const variants = [
      { key: 'a', weight: 50 },
      { key: 'b', weight: 50, config: JSON.parse(config) },
    ];
    expect(() => parse({ ...valid, variants })).toThrow(message);
  });
});
