import * as z from 'zod/mini';
import { exportsRouteDefs } from '../../catalog.ts';
import { MAX_QUERY_CHARS } from '../../domain/lake/limits.ts';
import { EXPORT_FORMATS } from '../../domain/lake/sql.ts';
import { agentId, isoDate, isoEndDate, pageQuery, rangeChecked } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';
import { cursorParam } from './search.ts';

const exportIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });

export const createExportBody = rangeChecked(
  z.object({
    format: z.enum(EXPORT_FORMATS),
    startDate: isoDate,
    endDate: isoEndDate,
    agentId: z.optional(agentId),
    q: z.optional(z.string().check(z.maxLength(MAX_QUERY_CHARS))),
  }),
);

const exportListQuery = z.object({ limit: pageQuery.shape.limit, cursor: cursorParam });

export const exportsRoutes = /* @__PURE__ */ areaRoutes(exportsRouteDefs, {
  'exports/create': {
    summary:
      'Queue an export (exports): the traces started between startDate and endDate, of one agent or matching a search if asked, as JSON lines, CSV or Parquet — one row per trace with its spans and signals',
    body: createExportBody,
  },
  'exports/list': { summary: 'Exports of the last 7 days, newest first', query: exportListQuery },
  'exports/get': {
    summary: 'An export: its status, and once written its rows, bytes and a download link (on AWS a presigned URL valid one hour)',
    params: exportIdParams,
  },
  'exports/download': { summary: "The export's file (locally streamed; on AWS a redirect to a presigned S3 URL valid one hour)", params: exportIdParams },
} as const satisfies AreaRouteSchemas<'exports'>);
