import { profilesRouteDefs } from '../../catalog.ts';
import { agentIdParams } from '../fields.ts';
import { profileEditBody } from '../profiles.ts';
import { type AreaRouteSchemas, areaRoutes } from '../route-schemas.ts';

export const profilesRoutes = /* @__PURE__ */ areaRoutes(profilesRouteDefs, {
  'profiles/get': {
    summary: "The agent's behavioural profile (null before the first), its phase, anchors with statuses, whether learning is enabled and when it runs next",
    params: agentIdParams,
  },
  'profiles/update': {
    summary: 'Edit the profile (identity, insights, expected error rate, latency and cost); the anchors follow; the next re-learning overwrites it',
    params: agentIdParams,
    body: profileEditBody,
  },
  'profiles/regenerate': { summary: 'Re-learn the profile from scratch now and restart the bootstrap phase', params: agentIdParams },
  'profiles/reset-training': {
    summary: 'Clear the profile and learning state: back to pre-profile, learning only from traces that arrive from now on',
    params: agentIdParams,
  },
} as const satisfies AreaRouteSchemas<'profiles'>);
