import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { dateRangeQuery, isoDate, isoEndDate, rangeChecked } from '#shared/schemas/common.ts';

describe('a date in a query', () => {
  // Read in a server whose time zone is not UTC: a date-time without an offset is UTC all the same.
  const zone = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = 'America/New_York';
  });
  afterAll(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it.each([
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2024-01-31T23:59', '2024-01-31T23:59:00.000Z'],
    ['2024-03-01T10:00:00.5+02:00', '2024-03-01T08:00:00.500Z'],
    ['2024-03-01T10:00:00+0200', '2024-03-01T08:00:00.000Z'],
    ['9000-01-01', '9000-01-01T00:00:00.000Z'],
  ])('takes %s', (text, iso) => {
    expect(z.parse(isoDate, text).toISOString()).toBe(iso);
  });

  it.each(['2024-02-30', '2023-02-29', '2024-04-31', '2024-13-01', '2024-00-10', '2024-01-01T25:00Z', '2024-1-1', 'yesterday'])(
    'refuses %s rather than reading another day',
    (text) => {
      expect(z.safeParse(isoDate, text).success).toBe(false);
    },
  );

  it('reads a day alone that ends a range as the end of that day, and a date-time as it is', () => {
    expect(z.parse(isoEndDate, '2024-02-29').toISOString()).toBe('2024-02-29T23:59:59.999Z');
    expect(z.parse(isoEndDate, '2024-02-29T00:00').toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(z.parse(isoEndDate, '2024-03-01T10:00:00+02:00').toISOString()).toBe('2024-03-01T08:00:00.000Z');
    expect(z.safeParse(isoEndDate, '2024-02-30').success).toBe(false);
    // A range of one day holds that day: it once ended where it began.
    expect(z.parse(rangeChecked(dateRangeQuery), { startDate: '2024-02-29', endDate: '2024-02-29' })).toEqual({
      startDate: new Date('2024-02-29T00:00:00.000Z'),
      endDate: new Date('2024-02-29T23:59:59.999Z'),
    });
  });

  it('says once what is wrong with text that is no date at all', () => {
    expect(z.safeParse(isoDate, 'notadate').error?.issues.map((i) => i.message)).toEqual(['must be an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ssZ)']);
    expect(z.safeParse(isoDate, '2024-02-30').error?.issues.map((i) => i.message)).toEqual(['is not a day of the calendar']);
  });

  it('refuses a range whose end comes before its start, naming endDate', () => {
    const result = z.safeParse(rangeChecked(dateRangeQuery), { startDate: '2024-02-02', endDate: '2024-02-01' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toEqual([['endDate']]);
  });
});
