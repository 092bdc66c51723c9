import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '#shared/config.ts';
import { DEFAULT_LEARNING_SETTINGS } from '#shared/domain/profiles/settings.ts';

const env = { TABLE_NAME: 't', SIGNING_SEED: 'x'.repeat(32) };

describe('profile learning settings', () => {
  it('default to the documented constants', () => {
    expect(parseConfig(env).profiles).toEqual({ learning: DEFAULT_LEARNING_SETTINGS, narratorModelId: undefined });
    expect(DEFAULT_LEARNING_SETTINGS).toEqual({
      minTraces: 50,
      windowDays: 14,
      bootstrapFirstIntervalMinutes: 60,
      bootstrapGrowthFactor: 2,
      convergenceCycles: 3,
      checkIntervalMinutes: 60,
      driftCooldownHours: 6,
      refreshDays: 7,
      sampleTraces: 100,
      measurementDelayMinutes: 5,
      anchorMinTraces: 10,
    });
  });

  it('are overridden field by field with PROFILE_LEARNING, and a bad value fails the start naming it', () => {
    const { learning } = parseConfig({ ...env, PROFILE_LEARNING: '{"minTraces":5,"refreshDays":0.5}', PROFILE_NARRATOR_MODEL_ID: 'm' }).profiles;
    expect(learning).toEqual({ ...DEFAULT_LEARNING_SETTINGS, minTraces: 5, refreshDays: 0.5 });
    for (const bad of ['{"bootstrapGrowthFactor":1}', '{"windowDays":90}', '{"minTrace":5}', 'not json']) {
      expect(() => parseConfig({ ...env, PROFILE_LEARNING: bad }), bad).toThrow(ConfigError);
      expect(() => parseConfig({ ...env, PROFILE_LEARNING: bad }), bad).toThrow(/PROFILE_LEARNING/);
    }
  });
});
