import { describe, expect, it } from 'vitest';
import { analyticsWindow, resolveGranularity, resolveRange } from '#shared/domain/analytics/window.ts';
import { ValidationError } from '#shared/domain/errors.ts';

const DAY = 86_400_000;
const now = new Date('2024-06-15T12:00:00Z');
const NOW = now.getTime();
const date = (iso: string) => new Date(iso);

const validationErrorOf = (run: () => unknown): ValidationError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('resolveRange', () => {
  it('defaults to the last 7 days', () => {
    expect(resolveRange({}, now)).toEqual({ startMs: NOW - 7 * DAY, endMs: NOW });
  });

  it('defaults the start to 7 days before an explicit end', () => {
    expect(resolveRange({ endDate: date('2024-06-01T00:00:00Z') }, now)).toEqual({
      startMs: Date.parse('2024-05-25T00:00:00Z'),
      endMs: Date.parse('2024-06-01T00:00:00Z'),
    });
  });

  it('defaults the start to whole days before a day given alone as the end (its last millisecond)', () => {
    expect(resolveRange({ endDate: date('2024-06-01T23:59:59.999Z') }, now)).toEqual({
      startMs: Date.parse('2024-05-26T00:00:00Z'),
      endMs: Date.parse('2024-06-01T23:59:59.999Z'),
    });
  });

  it('clamps dates in the future to now', () => {
    expect(resolveRange({ startDate: date('2024-06-15T00:00:00Z'), endDate: date('2025-01-01') }, now)).toEqual({
      startMs: Date.parse('2024-06-15T00:00:00Z'),
      endMs: NOW,
    });
    expect(resolveRange({ startDate: date('2024-07-01') }, now)).toEqual({ startMs: NOW, endMs: NOW });
  });

  it('refuses an end before the start, naming endDate', () => {
    const error = validationErrorOf(() => resolveRange({ startDate: date('2024-06-10'), endDate: date('2024-06-09') }, now));
    expect(error.message).toMatch(/^endDate:/);
  });

  it('allows 366 days and refuses more, naming startDate', () => {
    expect(resolveRange({ startDate: new Date(NOW - 366 * DAY) }, now)).toEqual({ startMs: NOW - 366 * DAY, endMs: NOW });
    expect(validationErrorOf(() => resolveRange({ startDate: new Date(NOW - 366 * DAY - 1) }, now)).message).toMatch(/^startDate:/);
  });
});

describe('resolveGranularity', () => {
  const start = Date.parse('2024-06-01T00:00:00Z');

  it('chooses automatically without an interval', () => {
    expect(resolveGranularity(undefined, start, start + 3_600_000)).toBe('minute');
    expect(resolveGranularity(undefined, start, start + 7 * DAY)).toBe('hour');
    expect(resolveGranularity(undefined, start, start + 90 * DAY)).toBe('day');
  });

  it('takes an explicit interval, even a coarse one for a short range', () => {
    expect(resolveGranularity('day', start, start + 3_600_000)).toBe('day');
    expect(resolveGranularity('minute', start, start + DAY)).toBe('minute');
  });

  it('refuses an unknown interval, naming interval', () => {
    for (const interval of ['week', 'Hour', '1h', '']) {
      expect(validationErrorOf(() => resolveGranularity(interval, start, start + DAY)).message).toMatch(/^interval: must be one of minute, hour, day/);
    }
  });

  it('refuses an interval that would make more than 1500 points, naming interval', () => {
    expect(validationErrorOf(() => resolveGranularity('minute', start, start + 2 * DAY)).message).toMatch(/^interval:.*2880 points/);
    expect(validationErrorOf(() => resolveGranularity('hour', start, start + 90 * DAY)).message).toMatch(/^interval:/);
  });
});

describe('analyticsWindow', () => {
  it('resolves the range and the granularity together', () => {
    expect(analyticsWindow({ interval: 'day' }, now)).toEqual({ startMs: NOW - 7 * DAY, endMs: NOW, granularity: 'day' });
    expect(analyticsWindow({}, now).granularity).toBe('hour');
  });
});
