import * as z from 'zod/mini';
import { experimentsRouteDefs } from '../../catalog.ts';
import { createExperimentBody } from '../../domain/experiments/definition.ts';
import { EXPERIMENT_STATUSES } from '../../domain/experiments/lifecycle.ts';
import { agentId, dateRangeQuery, pageQuery, rangeChecked } from '../common.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

const experimentIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });
const experimentListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(agentId),
    status: z.optional(z.enum(EXPERIMENT_STATUSES)),
  }),
);
const assignQuery = z.object({ subjectId: z.string().check(z.minLength(1), z.maxLength(256)) });

export const experimentsRoutes = /* @__PURE__ */ areaRoutes(experimentsRouteDefs, {
  'experiments/list': {
    summary: 'List experiments, newest first (filters: status, agentId, created between startDate and endDate)',
    query: experimentListQuery,
  },
  'experiments/create': { summary: 'Create an experiment (in draft) with 2–10 weighted variants', body: createExperimentBody },
  'experiments/get': { summary: 'An experiment', params: experimentIdParams },
  'experiments/start': { summary: 'Start a draft experiment, or resume a paused one', params: experimentIdParams },
  'experiments/pause': { summary: 'Pause a running experiment: it stops assigning variants', params: experimentIdParams },
  'experiments/stop': { summary: 'Stop a running or paused experiment, for good', params: experimentIdParams },
  'experiments/assign': {
    summary: "The subject's variant: deterministic and sticky; null outside the traffic percentage. Running experiments only",
    params: experimentIdParams,
    query: assignQuery,
  },
  'experiments/results': {
    summary: 'Per-variant metrics, each variant against the control with 95% intervals and p-values, a sample-ratio check and a verdict',
    params: experimentIdParams,
  },
} as const satisfies AreaRouteSchemas<'experiments'>);
