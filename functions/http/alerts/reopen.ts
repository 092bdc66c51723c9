import { alertStatusRoute } from '#shared/http/alert-status-route.ts';
import { alertStatusPorts } from '#shared/wiring/alerts.ts';

export const handler = alertStatusRoute('reopen', alertStatusPorts);
