/**
 * The success response of every route, keyed by catalog id: the OpenAPI document describes responses
 * with them, and the end-to-end tests check every answer the service gives against them.
 * Only `openapi.ts` and tests import this module; handlers never do, so their bundles stay as they are.
 */
import * as z from 'zod';
import type { RouteId } from '../catalog.ts';
import { apiKey, emailVerified, hostedSignIn, hostedSignInProvider, issuedApiKey, jwksDocument, session, user, userProfileBody } from './responses/accounts.ts';
import { agent, alert, alertConfig, alertSummary, profileView } from './responses/agents.ts';
import { agentMetrics, costs, dashboardMetrics, latencyPercentiles, requestsOverTime, successFailure, tokenUsage } from './responses/analytics.ts';
import { deleted, enveloped, errorBody, jsonValue, message, paged, pagedResource, pagination, type RouteResponse } from './responses/common.ts';
import { assignment, experiment, experimentResults } from './responses/experiments.ts';
import { askAnswer, exportFile, exportsPage, searchHit, searchPage, traceExport } from './responses/search.ts';
import {
  acceptedTelemetry,
  exportLogsServiceResponse,
  exportTraceServiceResponse,
  filterOptions,
  log,
  sessionDetail,
  session as sessionSummary,
  signal,
  signalSummary,
  span,
  traceDetail,
  traceSummary,
} from './responses/telemetry.ts';

export type { RouteResponse } from './responses/common.ts';

/** This service's own OpenAPI document; beyond its top-level fields it is free-form here (the standard validator checks it in the tests). */
const openApiDocumentBody = z.looseObject({
  openapi: z.string().startsWith('3.1'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.looseObject({}))),
  components: z.looseObject({}),
});

export const routeResponses = {
  'system/health': enveloped(z.strictObject({ status: z.literal('ok') })),
  'system/jwks': { status: 200, body: jwksDocument },
  'system/openapi': { status: 200, body: openApiDocumentBody },
  'system/not-found': { status: 404, body: errorBody },
  'auth/register': enveloped(session, 201),
  'auth/login': enveloped(session),
  'auth/forgot-password': enveloped(message),
  'auth/reset-password': enveloped(message),
  'auth/verify-email': enveloped(emailVerified),
  'auth/refresh': enveloped(session),
  'auth/logout': enveloped(message),
  'auth/hosted-sign-in': enveloped(hostedSignIn),
  'users/profile': { status: 200, body: userProfileBody },
  'keys/create': enveloped(issuedApiKey, 201),
  'keys/list': paged(apiKey),
  'keys/refresh': enveloped(issuedApiKey),
  'keys/revoke': enveloped(apiKey),
  'keys/delete': enveloped(deleted),

  'otlp/traces': {
    status: 200,
    body: exportTraceServiceResponse,
    protobufMessage: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse',
  },
  'otlp/logs': {
    status: 200,
    body: exportLogsServiceResponse,
    protobufMessage: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse',
  },
  'spans/ingest': enveloped(acceptedTelemetry, 202),
  'spans/list-traces': paged(traceSummary),
  'spans/get-trace': enveloped(traceDetail),
  'spans/filters': enveloped(filterOptions),
  'sessions/list': paged(sessionSummary),
  'sessions/get': pagedResource(sessionDetail),
  'logs/ingest': enveloped(acceptedTelemetry, 202),
  'logs/list': paged(log),
  'signals/record': enveloped(acceptedTelemetry, 202),
  'signals/record-batch': enveloped(acceptedTelemetry, 202),
  'signals/list': paged(signal),
  'signals/summary': enveloped(signalSummary),
  'signals/of-trace': enveloped(z.array(signal)),

  'agents/list': paged(agent),
  'agents/create': enveloped(agent, 201),
  'agents/get': enveloped(agent),
  'agents/update': enveloped(agent),
  'agents/delete': enveloped(deleted),
  'agents/update-alerts': enveloped(alertConfig),
  'profiles/get': enveloped(profileView),
  'profiles/update': enveloped(profileView),
  'profiles/regenerate': enveloped(profileView),
  'profiles/reset-training': enveloped(profileView),

  'analytics/metrics': enveloped(dashboardMetrics),
  'analytics/success-failure': enveloped(successFailure),
  'analytics/requests-over-time': enveloped(requestsOverTime),
  'analytics/latency-percentiles': enveloped(latencyPercentiles),
  'analytics/token-usage': enveloped(tokenUsage),
  'analytics/costs': enveloped(costs),

  'alerts/list': paged(alert),
  'alerts/summary': enveloped(alertSummary),
  'alerts/get': enveloped(alert),
  'alerts/acknowledge': enveloped(alert),
  'alerts/reopen': enveloped(alert),
  'alerts/resolve': enveloped(alert),

  'experiments/list': paged(experiment),
  'experiments/create': enveloped(experiment, 201),
  'experiments/get': enveloped(experiment),
  'experiments/start': enveloped(experiment),
  'experiments/pause': enveloped(experiment),
  'experiments/stop': enveloped(experiment),
  'experiments/assign': enveloped(assignment),
  'experiments/results': enveloped(experimentResults),

  'search/traces': searchPage,
  'search/ask': enveloped(askAnswer),
  'exports/create': enveloped(z.strictObject({ id: z.string(), status: z.literal('queued') }), 202),
  'exports/list': exportsPage,
  'exports/get': enveloped(traceExport),
  'exports/download': exportFile,
} as const satisfies Record<RouteId, RouteResponse>;

/** Schemas the document names in `components.schemas` and refers to wherever they occur. */
export const responseComponents = {
  Error: errorBody,
  Pagination: pagination,
  /** Recursive, so it must be named: a nameless recursive schema has nowhere to point its `$ref`. */
  JsonValue: jsonValue,
  User: user,
  HostedSignInProvider: hostedSignInProvider,
  ApiKey: apiKey,
  AcceptedTelemetry: acceptedTelemetry,
  TraceSummary: traceSummary,
  Span: span,
  Signal: signal,
  Log: log,
  Session: sessionSummary,
  AgentMetrics: agentMetrics,
  AlertConfig: alertConfig,
  Agent: agent,
  Alert: alert,
  AgentProfileView: profileView,
  Experiment: experiment,
  SearchHit: searchHit,
  Export: traceExport,
} satisfies Record<string, z.ZodType>;
