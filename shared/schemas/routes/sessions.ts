import * as z from 'zod/mini';
import { sessionsRouteDefs } from '../../catalog.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

const sessionId = z.string().check(z.minLength(1), z.maxLength(256));

export const sessionListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentId),
    userId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  }),
);

export const sessionsRoutes = /* @__PURE__ */ areaRoutes(sessionsRouteDefs, {
  'sessions/list': {
    summary:
      'List sessions (conversations: the traces naming one sessionId), most recently started first, with their agent, user, first and last seen, traces, errors, tokens, cost and duration; dates bound when a session started',
    query: sessionListQuery,
  },
  'sessions/get': {
    summary: "A session's figures and a page of its traces in the order they started, each with its input and output (cut at 4 KB; the trace has them whole)",
    params: z.object({ sessionId }),
    query: pageQuery,
  },
} as const satisfies AreaRouteSchemas<'sessions'>);
