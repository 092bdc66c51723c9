import { experimentStatusRoute } from '#shared/http/experiment-status-route.ts';

export const handler = experimentStatusRoute('start');
