import { alertStatusRoute } from '#shared/http/alert-status-route.ts';

export const handler = alertStatusRoute('acknowledge');
