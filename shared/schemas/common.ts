import * as z from 'zod/mini';
import { MAX_SKIP } from '../domain/paging/page.ts';

/** An agent's id in a path or a filter. */
export const agentId = z.string().check(z.minLength(1), z.maxLength(64));

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A day of the calendar, `YYYY-MM-DD`: `Date` would take 2024-02-30 for March 1. */
const calendarDay = z.iso.date();

/** The offset that ends a date-time, if it has one. */
const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

const isoDateText = z.string().check(
  z.regex(ISO_DATE, 'must be an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ssZ)'),
  // Only text of the right form is asked whether its day exists: `notadate` gets one message, not two.
  z.refine((s: string) => !ISO_DATE.test(s) || calendarDay.safeParse(s.slice(0, 10)).success, 'is not a day of the calendar'),
);

const DAY_MS = 86_400_000;

/** ISO 8601 text (`ISO_DATE`) in epoch milliseconds, NaN if it names no time; one without an offset is UTC, as a date is. */
// `Date` reads a date-time without an offset in the server's time zone.
export const isoTimeMs = (s: string): number => new Date(s.length > 10 && !OFFSET.test(s) ? `${s}Z` : s).getTime();

/** Whether the text is an ISO 8601 date or date-time that names a time (`Date.parse` alone takes "1" for 2001). */
export const isIsoTime = (s: string): boolean => ISO_DATE.test(s) && calendarDay.safeParse(s.slice(0, 10)).success && !Number.isNaN(isoTimeMs(s));

/** ISO 8601 text as a Date, `later` ms on; one without an offset is UTC, as a date is. */
const dateOf = (later: (s: string) => number) =>
  z.transform((s: string, ctx) => {
    const d = new Date(isoTimeMs(s));
    if (Number.isNaN(d.getTime())) {
      ctx.issues.push({ code: 'custom', message: 'is not a valid date', input: s });
      return z.NEVER;
    }
    return new Date(d.getTime() + later(s));
  });

/** An ISO 8601 date (`YYYY-MM-DD` or a date-time; one without an offset is UTC, as a date is) in a query string, as a Date. */
export const isoDate = z.pipe(
  isoDateText,
  dateOf(() => 0),
);

/**
 * An ISO 8601 date that ends a range: as `isoDate`, but a day alone (`2026-11-29`) means the end of that
 * day (its last millisecond, UTC), so a range of one day holds that day. Read as the day's start, it
 * left out every trace of the day it named: a range from a day to the same day was empty.
 */
export const isoEndDate = z.pipe(
  isoDateText,
  dateOf((s) => (s.length === 10 ? DAY_MS - 1 : 0)),
);

const wholeNumber = (min: number, max?: number, tooLarge?: string) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d+$/, 'must be a whole number')), z.transform(Number)),
    max === undefined ? z.number().check(z.int(), z.gte(min)) : z.number().check(z.int(), z.gte(min), z.lte(max, tooLarge)),
  );

/** A whole number in a query string, from `min` to `max`. */
export const queryInteger = (min: number, max: number) => wholeNumber(min, max);

/** A decimal number in a query string (`0.25`, `3`), from `min` to `max`. */
export const queryDecimal = (min: number, max: number) =>
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d{1,15}(\.\d{1,12})?$/, 'must be a decimal number such as 0.25')), z.transform(Number)),
    z.number().check(z.gte(min), z.lte(max)),
  );

/** `true` or `false` in a query string. */
export const queryBoolean = z.pipe(
  z.enum(['true', 'false']),
  z.transform((v: 'true' | 'false') => v === 'true'),
);

/**
 * `limit` 1–100 (default 50), `skip` 0–MAX_SKIP (default 0) and `cursor` (a page's `nextCursor`), as
 * every list endpoint takes them. A cursor continues the list after the previous page; `skip` then
 * skips from there.
 */
export const pageQuery = z.object({
  limit: z._default(wholeNumber(1, 100), 50),
  skip: z._default(wholeNumber(0, MAX_SKIP, `must be at most ${MAX_SKIP}; page deeper with cursor (pagination.nextCursor)`), 0),
  cursor: z.optional(z.string().check(z.regex(/^[\w-]{1,1024}\.[\w-]{1,64}$/, 'must be a pagination.nextCursor this service returned'))),
});

/** `startDate` / `endDate`, with endDate not before startDate. */
export const dateRangeQuery = z.object({
  startDate: z.optional(isoDate),
  endDate: z.optional(isoEndDate),
});

/** Refuses a range whose end comes before its start, naming endDate. */
export function rangeChecked<S extends z.ZodMiniType<{ startDate?: Date; endDate?: Date }>>(schema: S): S {
  return schema.check(
    z.superRefine((q: { startDate?: Date; endDate?: Date }, ctx) => {
      if (q.startDate && q.endDate && q.endDate < q.startDate) {
        ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      }
    }),
  );
}
