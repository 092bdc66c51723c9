import * as z from 'zod';
import { EXPORT_STATUSES } from '../../domain/lake/ports.ts';
import { EXPORT_FORMATS } from '../../domain/lake/sql.ts';
import { count, isoDateTime, type RouteResponse } from './common.ts';
import { traceSummary } from './telemetry.ts';

/** Search and exports answer keyset pages: no total, an opaque signed cursor to the next page. */
export const cursorPagination = z.strictObject({
  limit: z.number().int().min(1).max(100),
  hasMore: z.boolean(),
  nextCursor: z.string().nullable(),
});

export const searchMatch = z.strictObject({
  spanId: z.string(),
  spanName: z.string(),
  spanKind: z.string(),
  field: z.string(),
  snippet: z.string(),
  highlight: z.strictObject({ start: count, end: count }),
});

/** A hit's trace as the lists show it now (read from the table for the page's hits), and the span and words that matched. */
export const searchHit = z.strictObject({ trace: traceSummary, match: searchMatch.nullable() });

export const searchPage: RouteResponse = {
  status: 200,
  body: z.strictObject({ success: z.literal(true), data: z.array(searchHit), pagination: cursorPagination }),
};

export const askAnswer = z.strictObject({
  question: z.string(),
  query: z.strictObject({ q: z.string(), startDate: isoDateTime.nullable(), endDate: isoDateTime.nullable() }),
  translatedBy: z.enum(['builtin', 'bedrock']),
  ignored: z.array(z.string()),
  results: z.array(searchHit),
  pagination: cursorPagination,
});

export const traceExport = z.strictObject({
  id: z.string(),
  status: z.enum(EXPORT_STATUSES),
  format: z.enum(EXPORT_FORMATS),
  startDate: isoDateTime,
  endDate: isoDateTime,
  agentId: z.string().nullable(),
  q: z.string().nullable(),
  rows: count.nullable(),
  bytes: count.nullable(),
  createdAt: isoDateTime,
  startedAt: isoDateTime.nullable(),
  finishedAt: isoDateTime.nullable(),
  downloadUrl: z.string().optional(),
  expiresAt: isoDateTime.optional(),
  error: z.string().optional(),
});

export const exportsPage: RouteResponse = {
  status: 200,
  body: z.strictObject({ success: z.literal(true), data: z.array(traceExport), pagination: cursorPagination }),
};

/** The export's file itself (locally; on AWS the route redirects to S3). */
export const exportFile: RouteResponse = {
  status: 200,
  body: z.string().describe('the export file: JSON lines, CSV or Parquet'),
  file: { contentTypes: ['application/x-ndjson', 'text/csv', 'application/vnd.apache.parquet'] },
};
