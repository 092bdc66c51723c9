import * as z from 'zod/mini';
import { agentsRouteDefs } from '../../catalog.ts';
import { alertConfigPatch } from '../../domain/alerts/config.ts';
import { dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { agentIdParams, text } from '../fields.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

/** An agent's name as the agents API takes it: no control characters (a tab or a line break in a name shows as nothing or breaks a line). */
const agentName = text(1, 200).check(z.refine((s: string) => !/\p{Cc}/u.test(s), 'must not hold control characters (tabs, line breaks, …)'));

export const createAgentBody = z.object({
  name: agentName,
  description: z._default(z.string().check(z.maxLength(2000)), ''),
  profileSettings: z._default(z.object({ learningEnabled: z._default(z.boolean(), true) }), { learningEnabled: true }),
});
export const updateAgentBody = z
  .object({
    name: z.optional(agentName),
    description: z.optional(z.string().check(z.maxLength(2000))),
    profileSettings: z.optional(z.object({ learningEnabled: z.boolean() })),
  })
  .check(z.refine((b: object) => Object.keys(b).length > 0, 'send at least one of name, description, profileSettings'));

/** The dates an agent's metrics cover; without them, the plan's retention. */
const metricsRange = rangeChecked(dateRangeQuery);
export const agentListQuery = rangeChecked(z.extend(pageQuery, dateRangeQuery.shape));

export const agentsRoutes = /* @__PURE__ */ areaRoutes(agentsRouteDefs, {
  'agents/list': {
    summary: "List agents with their metrics: over startDate–endDate when either is given (as /analytics/metrics counts it), else over the plan's retention",
    query: agentListQuery,
  },
  'agents/create': { summary: 'Create an agent', body: createAgentBody },
  'agents/get': {
    summary: "An agent with its metrics: over startDate–endDate when either is given, else over the plan's retention",
    params: agentIdParams,
    query: metricsRange,
  },
  'agents/update': { summary: 'Update an agent', params: agentIdParams, body: updateAgentBody },
  'agents/delete': { summary: 'Delete an agent and all its data', params: agentIdParams },
  'agents/update-alerts': {
    summary: "Update the agent's alert configuration (merged onto the current one); answers the configuration in force",
    params: agentIdParams,
    body: alertConfigPatch,
  },
} as const satisfies AreaRouteSchemas<'agents'>);
