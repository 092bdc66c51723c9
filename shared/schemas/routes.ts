import * as z from 'zod/mini';
import type { RouteId } from '../catalog.ts';
import { createKeyBody, forgotPasswordBody, keyIdParams, loginBody, registerBody, resetPasswordBody, verifyEmailQuery } from './accounts.ts';
import { alertConfigPatch } from '../domain/alerts/config.ts';
import { alertListFilters } from '../domain/alerts/service.ts';
import { createExperimentBody } from '../domain/experiments/definition.ts';
import { EXPERIMENT_STATUSES } from '../domain/experiments/lifecycle.ts';
import { analyticsQuery } from './analytics.ts';
import { dateRangeQuery, pageQuery, rangeChecked } from './common.ts';
import { profileEditBody } from './profiles.ts';
import {
  agentIdParams,
  agentListQuery,
  createAgentBody,
  logListQuery,
  logsBatchBody,
  signalBody,
  signalListQuery,
  signalsBatchBody,
  signalSummaryQuery,
  spansBatchBody,
  traceIdParams,
  traceListQuery,
  updateAgentBody,
} from './ingest.ts';

const MB = 1024 * 1024;

const alertIdParams = z.object({ alertId: z.string().check(z.minLength(1), z.maxLength(64)) });
const alertListQuery = rangeChecked(z.extend(pageQuery, { ...dateRangeQuery.shape, ...alertListFilters.shape }));
const alertSummaryQuery = rangeChecked(z.extend(dateRangeQuery, { agentId: alertListFilters.shape.agentId }));

const experimentIdParams = z.object({ id: z.string().check(z.minLength(1), z.maxLength(64)) });
const experimentListQuery = rangeChecked(
  z.extend(pageQuery, {
    ...dateRangeQuery.shape,
    agentId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    status: z.optional(z.enum(EXPERIMENT_STATUSES)),
  }),
);
const assignQuery = z.object({ subjectId: z.string().check(z.minLength(1), z.maxLength(256)) });

export interface RouteSchemas {
  summary: string;
  body?: z.ZodMiniType;
  query?: z.ZodMiniType;
  params?: z.ZodMiniType;
  /** Largest request body accepted (decompressed); 1 MB unless said otherwise. */
  maxBodyBytes?: number;
  /** The body is not JSON (OTLP protobuf or JSON, decoded by the handler); described here for the docs. */
  rawBody?: { contentTypes: readonly string[] };
}

export const DEFAULT_MAX_BODY_BYTES = 1 * MB;

/**
 * Request schemas of every route, keyed by catalog id: the HTTP stack validates with them and the
 * OpenAPI document is generated from them, so the two cannot drift apart.
 */
export const routeSchemas = {
  'system/health': { summary: 'Liveness check' },
  'system/jwks': { summary: 'Public keys that verify the access tokens this service issues (JWKS)' },
  'system/openapi': { summary: 'This OpenAPI 3.1 document' },
  'system/not-found': { summary: 'Answers any request no route matches with 404 NOT_FOUND' },
  'auth/register': { summary: 'Create an account (starts a 14-day trial) and receive an access token', body: registerBody },
  'auth/login': { summary: 'Exchange e-mail and password for an access token', body: loginBody },
  'auth/forgot-password': { summary: 'E-mail a single-use password reset link (same answer for any e-mail)', body: forgotPasswordBody },
  'auth/reset-password': { summary: 'Set a new password with a reset token', body: resetPasswordBody },
  'auth/verify-email': { summary: 'Mark the e-mail address verified with the token from the welcome e-mail', query: verifyEmailQuery },
  'users/profile': { summary: "The signed-in user's profile, subscription and resource counts" },
  'keys/create': { summary: 'Create an API key; the full key is in the answer, once', body: createKeyBody },
  'keys/list': { summary: "List the tenant's API keys (never their secrets)", query: pageQuery },
  'keys/refresh': { summary: 'Rotate an API key: a new secret, the old one stops working', params: keyIdParams },
  'keys/revoke': { summary: 'Revoke an API key; it stops authenticating at once', params: keyIdParams },
  'keys/delete': { summary: 'Delete an API key', params: keyIdParams },

  'otlp/traces': {
    summary: 'OTLP/HTTP trace export (JSON or protobuf, gzip allowed); answers ExportTraceServiceResponse',
    maxBodyBytes: 5 * MB,
    rawBody: { contentTypes: ['application/x-protobuf', 'application/json'] },
  },
  'otlp/logs': {
    summary: 'OTLP/HTTP log export (JSON or protobuf, gzip allowed); answers ExportLogsServiceResponse',
    maxBodyBytes: 5 * MB,
    rawBody: { contentTypes: ['application/x-protobuf', 'application/json'] },
  },
  'spans/ingest': { summary: 'Ingest up to 1000 spans (native JSON); 202 with accepted/rejected counts', body: spansBatchBody, maxBodyBytes: 5 * MB },
  'spans/list-traces': { summary: 'List traces (root spans), newest first', query: traceListQuery },
  'spans/get-trace': { summary: 'A trace with its spans (ordered, with parent links), signals and logs', params: traceIdParams },
  'spans/filters': { summary: 'Values present in the trace store: agents, models, statuses, span kinds, tools, signal names' },
  'logs/ingest': { summary: 'Ingest up to 1000 log records', body: logsBatchBody, maxBodyBytes: 5 * MB },
  'logs/list': { summary: 'List logs, newest first', query: logListQuery },
  'signals/record': { summary: 'Record a signal', body: signalBody },
  'signals/record-batch': { summary: 'Record up to 1000 signals', body: signalsBatchBody, maxBodyBytes: 5 * MB },
  'signals/list': { summary: 'List signals, newest first', query: signalListQuery },
  'signals/summary': { summary: 'Per signal name and agent: count, avg, min, max, p50, p95', query: signalSummaryQuery },
  'signals/of-trace': { summary: 'Signals of one trace', params: traceIdParams },
  'agents/list': { summary: 'List agents with their metrics', query: agentListQuery },
  'agents/create': { summary: 'Create an agent', body: createAgentBody },
  'agents/get': { summary: 'An agent with its metrics', params: agentIdParams },
  'agents/update': { summary: 'Update an agent', params: agentIdParams, body: updateAgentBody },
  'agents/delete': { summary: 'Delete an agent and all its data', params: agentIdParams },
  'agents/update-alerts': {
    summary: "Update the agent's alert configuration (merged onto the current one); answers the configuration in force",
    params: agentIdParams,
    body: alertConfigPatch,
  },
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
  'profiles/reset-training': { summary: 'Clear the profile and learning state: back to pre-profile, learning only from traces that arrive from now on', params: agentIdParams },
  'analytics/metrics': { summary: 'Dashboard metrics over a range, with a per-agent breakdown', query: analyticsQuery },
  'analytics/success-failure': { summary: 'Success and failure counts and rates, overall and per bucket', query: analyticsQuery },
  'analytics/requests-over-time': { summary: 'Request volume per bucket (zero-filled)', query: analyticsQuery },
  'analytics/latency-percentiles': { summary: 'Trace latency p50/p75/p90/p95/p99, avg, min, max, overall and per bucket', query: analyticsQuery },
  'analytics/token-usage': { summary: 'Input, output and total tokens per bucket and per model', query: analyticsQuery },
  'analytics/costs': { summary: 'Cost by agent, by model and per bucket', query: analyticsQuery },
  'alerts/list': { summary: 'List alerts, newest first', query: alertListQuery },
  'alerts/summary': { summary: 'Alert counts per agent by status, type and severity', query: alertSummaryQuery },
  'alerts/get': { summary: 'Alert details', params: alertIdParams },
  'alerts/acknowledge': { summary: 'Acknowledge an open alert', params: alertIdParams },
  'alerts/reopen': { summary: 'Reopen an acknowledged or resolved alert', params: alertIdParams },
  'alerts/resolve': { summary: 'Resolve an open or acknowledged alert', params: alertIdParams },
  'experiments/list': { summary: 'List experiments, newest first (filters: status, agentId, created between startDate and endDate)', query: experimentListQuery },
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
} as const satisfies Record<RouteId, RouteSchemas>;
