import * as z from 'zod';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date (`YYYY-MM-DD` or a date-time) in a query string, as a Date. */
export const isoDate = z
  .string()
  .regex(ISO_DATE, 'must be an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:mm:ssZ)')
  .transform((s, ctx) => {
    const d = new Date(s);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'is not a valid date' });
      return z.NEVER;
    }
    return d;
  });

const wholeNumber = (min: number, max?: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(max === undefined ? z.number().int().min(min) : z.number().int().min(min).max(max));

/** `limit` 1–100 (default 50) and `skip` ≥ 0 (default 0), as every list endpoint takes them. */
export const pageQuery = z.object({
  limit: wholeNumber(1, 100).default(50),
  skip: wholeNumber(0).default(0),
});

/** `startDate` / `endDate`, with endDate not before startDate. */
export const dateRangeQuery = z.object({
  startDate: isoDate.optional(),
  endDate: isoDate.optional(),
});

/** Refuses a range whose end comes before its start, naming endDate. */
export function rangeChecked<S extends z.ZodType<{ startDate?: Date; endDate?: Date }>>(schema: S) {
  return schema.superRefine((q, ctx) => {
    if (q.startDate && q.endDate && q.endDate < q.startDate) {
      ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
    }
  });
}
