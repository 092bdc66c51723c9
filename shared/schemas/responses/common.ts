import * as z from 'zod';
import { ERROR_CODES } from '../../domain/errors.ts';

/**
 * What a route answers when it does its job: the status and the body. Objects are strict wherever
 * their keys are fixed, so a field the handler adds or drops without this description is caught.
 */
export interface RouteResponse {
  status: number;
  /** The JSON body, envelope included. */
  body: z.ZodType;
  /** The protobuf message the route answers with instead when the request was protobuf (OTLP). */
  protobufMessage?: string;
  /** The answer is a file of one of these media types, sent as an attachment, not JSON. */
  file?: { contentTypes: readonly string[] };
}

/** An instant as the service writes it (`Date.prototype.toISOString`). */
export const isoDateTime = z.iso.datetime();
/** Any JSON value: span attributes, signal metadata, variant configurations. One instance, so the document can name it once. */
export const jsonValue = z.json();
export const jsonObject = z.record(z.string(), jsonValue);
export const count = z.number().int().nonnegative();
/** A share or rate from 0 to 1. */
export const fraction = z.number().min(0).max(1);
/**
 * Token counts and costs are plain numbers, not counts: OTLP attributes carry whatever the exporter
 * sent, and traces and analytics add them up as they are.
 */
export const usageAmount = z.number();

export const pagination = z.strictObject({
  total: count.describe('Matching items: exact when totalExact, else a lower bound counted within a bounded read'),
  limit: z.number().int().min(1).max(100),
  skip: count,
  hasMore: z.boolean(),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      'Pass as `cursor` for the next page (same filters); null on the last page. Signed, bound to the tenant, the list and its filters; valid 24 hours',
    ),
  totalExact: z.boolean().describe('Whether total is exact (from counters or a count that read to the end) or a lower bound'),
});

export const errorBody = z.strictObject({
  success: z.literal(false),
  error: z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z
      .optional(z.record(z.string(), z.string()))
      .describe('Ids the message refers to, to link: `activeAlertId` when a reopen is refused for a newer active alert'),
  }),
});

/** `{ success: true, data }` */
export const enveloped = (data: z.ZodType, status = 200): RouteResponse => ({
  status,
  body: z.strictObject({ success: z.literal(true), data }),
});

/** `{ success: true, data: [item…], pagination }` */
export const paged = (item: z.ZodType): RouteResponse => ({
  status: 200,
  body: z.strictObject({ success: z.literal(true), data: z.array(item), pagination }),
});

/** `{ success: true, data: resource, pagination }`: a resource with a paged list inside (a session and its traces). */
export const pagedResource = (data: z.ZodType): RouteResponse => ({
  status: 200,
  body: z.strictObject({ success: z.literal(true), data, pagination }),
});

/** A deletion's answer. */
export const deleted = z.strictObject({ id: z.string(), deleted: z.literal(true) });

/** Links and resets answer a sentence for people to read. */
export const message = z.strictObject({ message: z.string() });
