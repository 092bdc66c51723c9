import { experimentStatusRoute } from '#shared/http/experiment-status-route.ts';
import { experimentStatusPorts } from '#shared/wiring/experiments.ts';

export const handler = experimentStatusRoute('stop', experimentStatusPorts);
