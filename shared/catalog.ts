/**
 * The table of everything the service runs: HTTP routes (one table per area), queue consumers and schedules.
 * `infra/aws` builds API routes, functions, queues and rules from it; `infra/local` dispatches from it.
 * Adding an endpoint = one handler file at `functions/http/<id>.ts` + one row in its area's table
 * here + its request schemas in the area's schema table, `shared/schemas/routes/<area>.ts`.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call a route. `public`: anyone; `jwt`: a user's bearer token only; `any`: an API key or a bearer token. */
export type AuthMode = 'public' | 'jwt' | 'any';

/** Rate-limit tiers (spec, Limits). `auth` is the per-client-address tier of the public account endpoints. */
export type RateTier = 'standard' | 'strict' | 'ingestion' | 'auth';

export interface RouteDef {
  /** Handler module below `functions/http/`, also the function's logical name. */
  readonly id: string;
  readonly method: HttpMethod;
  /** Path below the `/api` base path, with `{name}` path parameters (the API Gateway form). */
  readonly path: string;
  readonly auth: AuthMode;
  readonly tier: RateTier;
  /** Lambda memory; password hashing (scrypt, 128 MiB working set) needs more than the default. */
  readonly memoryMb?: number;
  /** Queues the handler sends to (infra grants exactly these). */
  readonly sendsTo?: readonly QueueId[];
  /** A public route that still needs the signing secret (it signs tokens or publishes keys); routes with auth always get it. */
  readonly usesSigningKey?: boolean;
  /** What the handler reaches beyond the table, its secret and its queues (infra grants exactly these). */
  readonly uses?: readonly Capability[];
  /** How long the function may run (default 10 s; at most 29, API Gateway's limit): the lake's queries wait for Athena. */
  readonly timeoutSeconds?: number;
}

/**
 * What a function may reach beyond the table and queues, granted per function from the catalog:
 * `messageDelivery` e-mail (SES) and SMS (SNS); `judge` the evaluation model (Bedrock); `narrator` the
 * profile narratives' model (Bedrock, when the operator names one); `metricsSink` the optional
 * Timestream table of per-trace measures; `askModel` the model that turns questions into search
 * queries (Bedrock); and the trace lake's (`LakeCapability`).
 */
export type Capability = 'messageDelivery' | 'judge' | 'narrator' | 'metricsSink' | 'askModel' | LakeCapability;

/**
 * The trace lake (Firehose, Iceberg tables in S3, Athena on AWS): `lakeWrite` puts finished traces in it
 * (its Firehose stream); `lakeRead` searches it (Athena queries in the lake's workgroup); `lakeDelete`
 * removes rows (a deleted agent's, expired ones: Athena DELETEs); `lakeExport` writes exports (Athena
 * CREATE TABLE AS SELECT into the exports database); `exportLinks` hands out links to written exports
 * (presigned S3 URLs).
 */
export type LakeCapability = 'lakeWrite' | 'lakeRead' | 'lakeDelete' | 'lakeExport' | 'exportLinks';

export const API_BASE_PATH = '/api';

const joinAreas = <T extends readonly (readonly RouteDef[])[]>(...areas: T): readonly T[number][number][] => areas.flat();

/**
 * The routes, one table per area (the `keys` of `keys/list`). A function takes its own area's table
 * (through its area's request schemas, `shared/schemas/routes/<area>.ts`), so its bundle holds no
 * other area's rows.
 */
export const systemRouteDefs = [
  { id: 'system/health', method: 'GET', path: '/health', auth: 'public', tier: 'standard' },
  { id: 'system/jwks', method: 'GET', path: '/.well-known/jwks.json', auth: 'public', tier: 'standard', usesSigningKey: true },
  { id: 'system/openapi', method: 'GET', path: '/openapi.json', auth: 'public', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const authRouteDefs = [
  { id: 'auth/register', method: 'POST', path: '/auth/register', auth: 'public', tier: 'auth', memoryMb: 1024, sendsTo: ['notify'], usesSigningKey: true },
  { id: 'auth/login', method: 'POST', path: '/auth/login', auth: 'public', tier: 'auth', memoryMb: 1024, sendsTo: ['notify'], usesSigningKey: true },
  { id: 'auth/forgot-password', method: 'POST', path: '/auth/forgot-password', auth: 'public', tier: 'auth', sendsTo: ['notify'] },
  { id: 'auth/reset-password', method: 'POST', path: '/auth/reset-password', auth: 'public', tier: 'auth', memoryMb: 1024 },
  { id: 'auth/verify-email', method: 'GET', path: '/auth/verify-email', auth: 'public', tier: 'auth' },
  { id: 'auth/refresh', method: 'POST', path: '/auth/refresh', auth: 'public', tier: 'auth', usesSigningKey: true },
  { id: 'auth/logout', method: 'POST', path: '/auth/logout', auth: 'public', tier: 'auth' },
  { id: 'auth/hosted-sign-in', method: 'GET', path: '/auth/hosted-sign-in', auth: 'public', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const usersRouteDefs = [
  { id: 'users/profile', method: 'GET', path: '/users/profile', auth: 'jwt', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const keysRouteDefs = [
  { id: 'keys/create', method: 'POST', path: '/keys', auth: 'jwt', tier: 'strict' },
  { id: 'keys/list', method: 'GET', path: '/keys', auth: 'jwt', tier: 'strict' },
  { id: 'keys/refresh', method: 'PUT', path: '/keys/{id}/refresh', auth: 'jwt', tier: 'strict' },
  { id: 'keys/revoke', method: 'POST', path: '/keys/{id}/revoke', auth: 'jwt', tier: 'strict' },
  { id: 'keys/delete', method: 'DELETE', path: '/keys/{id}', auth: 'jwt', tier: 'strict' },
] as const satisfies readonly RouteDef[];

export const otlpRouteDefs = [
  { id: 'otlp/traces', method: 'POST', path: '/v1/traces', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
  { id: 'otlp/logs', method: 'POST', path: '/v1/logs', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
] as const satisfies readonly RouteDef[];

export const spansRouteDefs = [
  { id: 'spans/ingest', method: 'POST', path: '/spans', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
  { id: 'spans/list-traces', method: 'GET', path: '/spans/traces', auth: 'any', tier: 'ingestion' },
  { id: 'spans/get-trace', method: 'GET', path: '/spans/traces/{traceId}', auth: 'any', tier: 'ingestion' },
  { id: 'spans/filters', method: 'GET', path: '/spans/filters', auth: 'any', tier: 'ingestion' },
] as const satisfies readonly RouteDef[];

export const sessionsRouteDefs = [
  { id: 'sessions/list', method: 'GET', path: '/sessions', auth: 'any', tier: 'ingestion' },
  { id: 'sessions/get', method: 'GET', path: '/sessions/{sessionId}', auth: 'any', tier: 'ingestion' },
] as const satisfies readonly RouteDef[];

export const logsRouteDefs = [
  { id: 'logs/ingest', method: 'POST', path: '/logs', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
  { id: 'logs/list', method: 'GET', path: '/logs', auth: 'any', tier: 'ingestion' },
] as const satisfies readonly RouteDef[];

export const signalsRouteDefs = [
  { id: 'signals/record', method: 'POST', path: '/signals', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
  { id: 'signals/record-batch', method: 'POST', path: '/signals/batch', auth: 'any', tier: 'ingestion', sendsTo: ['ingest'] },
  { id: 'signals/list', method: 'GET', path: '/signals', auth: 'any', tier: 'ingestion' },
  { id: 'signals/summary', method: 'GET', path: '/signals/summary', auth: 'any', tier: 'ingestion' },
  { id: 'signals/of-trace', method: 'GET', path: '/signals/trace/{traceId}', auth: 'any', tier: 'ingestion' },
] as const satisfies readonly RouteDef[];

export const agentsRouteDefs = [
  { id: 'agents/list', method: 'GET', path: '/agents', auth: 'any', tier: 'standard' },
  { id: 'agents/create', method: 'POST', path: '/agents', auth: 'any', tier: 'standard' },
  { id: 'agents/get', method: 'GET', path: '/agents/{agentId}', auth: 'any', tier: 'standard' },
  { id: 'agents/update', method: 'PUT', path: '/agents/{agentId}', auth: 'any', tier: 'standard' },
  { id: 'agents/delete', method: 'DELETE', path: '/agents/{agentId}', auth: 'any', tier: 'standard', sendsTo: ['ingest'] },
  { id: 'agents/update-alerts', method: 'PUT', path: '/agents/{agentId}/alerts', auth: 'any', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const profilesRouteDefs = [
  { id: 'profiles/get', method: 'GET', path: '/agents/{agentId}/agent-profile', auth: 'any', tier: 'standard' },
  { id: 'profiles/update', method: 'PUT', path: '/agents/{agentId}/agent-profile', auth: 'any', tier: 'standard' },
  { id: 'profiles/regenerate', method: 'POST', path: '/agents/{agentId}/agent-profile/regenerate', auth: 'any', tier: 'standard', uses: ['narrator'] },
  { id: 'profiles/reset-training', method: 'POST', path: '/agents/{agentId}/agent-profile/reset-training', auth: 'any', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const analyticsRouteDefs = [
  { id: 'analytics/metrics', method: 'GET', path: '/analytics/metrics', auth: 'any', tier: 'standard' },
  { id: 'analytics/success-failure', method: 'GET', path: '/analytics/traces/success-failure', auth: 'any', tier: 'standard' },
  { id: 'analytics/requests-over-time', method: 'GET', path: '/analytics/traces/requests-over-time', auth: 'any', tier: 'standard' },
  { id: 'analytics/latency-percentiles', method: 'GET', path: '/analytics/traces/latency-percentiles', auth: 'any', tier: 'standard' },
  { id: 'analytics/token-usage', method: 'GET', path: '/analytics/traces/token-usage', auth: 'any', tier: 'standard' },
  { id: 'analytics/costs', method: 'GET', path: '/analytics/costs', auth: 'any', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const alertsRouteDefs = [
  { id: 'alerts/list', method: 'GET', path: '/spans/alerts', auth: 'any', tier: 'ingestion' },
  { id: 'alerts/summary', method: 'GET', path: '/spans/alerts/summary', auth: 'any', tier: 'ingestion' },
  { id: 'alerts/get', method: 'GET', path: '/spans/alerts/{alertId}', auth: 'any', tier: 'ingestion' },
  { id: 'alerts/acknowledge', method: 'PUT', path: '/spans/alerts/{alertId}/acknowledge', auth: 'any', tier: 'ingestion' },
  { id: 'alerts/reopen', method: 'PUT', path: '/spans/alerts/{alertId}/reopen', auth: 'any', tier: 'ingestion' },
  { id: 'alerts/resolve', method: 'PUT', path: '/spans/alerts/{alertId}/resolve', auth: 'any', tier: 'ingestion' },
] as const satisfies readonly RouteDef[];

export const experimentsRouteDefs = [
  { id: 'experiments/list', method: 'GET', path: '/experiments', auth: 'any', tier: 'standard' },
  { id: 'experiments/create', method: 'POST', path: '/experiments', auth: 'any', tier: 'standard' },
  { id: 'experiments/get', method: 'GET', path: '/experiments/{id}', auth: 'any', tier: 'standard' },
  { id: 'experiments/start', method: 'POST', path: '/experiments/{id}/start', auth: 'any', tier: 'standard' },
  { id: 'experiments/pause', method: 'POST', path: '/experiments/{id}/pause', auth: 'any', tier: 'standard' },
  { id: 'experiments/stop', method: 'POST', path: '/experiments/{id}/stop', auth: 'any', tier: 'standard' },
  { id: 'experiments/assign', method: 'GET', path: '/experiments/{id}/assign', auth: 'any', tier: 'ingestion' },
  { id: 'experiments/results', method: 'GET', path: '/experiments/{id}/results', auth: 'any', tier: 'standard' },
] as const satisfies readonly RouteDef[];

export const searchRouteDefs = [
  { id: 'search/traces', method: 'GET', path: '/search/traces', auth: 'any', tier: 'standard', timeoutSeconds: 28, uses: ['lakeRead'] },
  { id: 'search/ask', method: 'POST', path: '/search/ask', auth: 'any', tier: 'standard', timeoutSeconds: 28, memoryMb: 512, uses: ['lakeRead', 'askModel'] },
] as const satisfies readonly RouteDef[];

export const exportsRouteDefs = [
  { id: 'exports/create', method: 'POST', path: '/exports', auth: 'any', tier: 'standard', sendsTo: ['lake'] },
  { id: 'exports/list', method: 'GET', path: '/exports', auth: 'any', tier: 'standard', uses: ['exportLinks'] },
  { id: 'exports/get', method: 'GET', path: '/exports/{id}', auth: 'any', tier: 'standard', uses: ['exportLinks'] },
  { id: 'exports/download', method: 'GET', path: '/exports/{id}/download', auth: 'any', tier: 'standard', uses: ['exportLinks'] },
] as const satisfies readonly RouteDef[];

/** Every route: the areas' tables in order. Pure, so a bundle that uses none of it drops it. */
export const routes = /* @__PURE__ */ joinAreas(
  systemRouteDefs,
  authRouteDefs,
  usersRouteDefs,
  keysRouteDefs,
  otlpRouteDefs,
  spansRouteDefs,
  sessionsRouteDefs,
  logsRouteDefs,
  signalsRouteDefs,
  agentsRouteDefs,
  profilesRouteDefs,
  analyticsRouteDefs,
  alertsRouteDefs,
  experimentsRouteDefs,
  searchRouteDefs,
  exportsRouteDefs,
);

/** Answers every request no route matches (API Gateway's `$default` route; the local router's fallback). */
export const fallbackRoute = {
  id: 'system/not-found',
  auth: 'public',
  tier: 'standard',
} as const satisfies Pick<RouteDef, 'id' | 'auth' | 'tier'>;

export type RouteId = (typeof routes)[number]['id'] | typeof fallbackRoute.id;

export interface QueueDef {
  /** Logical name (the service's queues are the domain's `QueueMessages`, checked in `adapters/queue.ts`); the queue URL reaches functions as env `QUEUE_URL_<ID upper-cased>`. */
  readonly id: string;
  /** Consumer module below `functions/workers/`. */
  readonly consumer: string;
  readonly batchSize: number;
  /** Must exceed the consumer's run time; the consumer's timeout is derived from it. */
  readonly visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the queue's dead-letter queue. */
  readonly maxReceiveCount: number;
  /** Queues the consumer itself sends to (infra grants exactly these). */
  readonly sendsTo?: readonly string[];
  readonly memoryMb?: number;
  /** What the consumer reaches beyond the table and queues. */
  readonly uses?: readonly Capability[];
}

export const queues = [
  {
    id: 'ingest',
    consumer: 'ingest',
    batchSize: 10,
    visibilityTimeoutSeconds: 180,
    maxReceiveCount: 5,
    sendsTo: ['ingest', 'notify', 'evaluate', 'lake'],
    memoryMb: 1024,
    uses: ['metricsSink', 'lakeWrite'],
  },
  { id: 'notify', consumer: 'notify', batchSize: 10, visibilityTimeoutSeconds: 60, maxReceiveCount: 5, uses: ['messageDelivery'] },
  // A batch judges its traces in parallel, each with one Bedrock call per type (plus retries): a 90 s consumer.
  { id: 'evaluate', consumer: 'evaluate', batchSize: 5, visibilityTimeoutSeconds: 540, maxReceiveCount: 5, sendsTo: ['notify'], uses: ['judge'] },
  // Exports and deleted agents' rows: Athena statements that may run for minutes, one message at a time (15-minute consumer).
  {
    id: 'lake',
    consumer: 'lake',
    batchSize: 1,
    visibilityTimeoutSeconds: 5400,
    maxReceiveCount: 3,
    memoryMb: 1024,
    uses: ['lakeRead', 'lakeDelete', 'lakeExport'],
  },
] as const satisfies readonly QueueDef[];

export type QueueId = (typeof queues)[number]['id'];

export interface ScheduleDef {
  readonly id: string;
  /** Job module below `functions/jobs/`. */
  readonly job: string;
  readonly everyMinutes: number;
  /** Queues the job sends to (infra grants exactly these). */
  readonly sendsTo?: readonly string[];
  /** What the job reaches beyond the table and queues. */
  readonly uses?: readonly Capability[];
}

export const schedules = [
  { id: 'alerts-auto-resolve', job: 'alerts-auto-resolve', everyMinutes: 15 },
  { id: 'analytics-compaction', job: 'analytics-compaction', everyMinutes: 1 },
  { id: 'profile-learning', job: 'profile-learning', everyMinutes: 5, uses: ['narrator'] },
  // Moves items written before the current index layout into it (a one-off walk); then one read a run.
  // Queues the refreshes of the large sessions of the traces it rewrites, as the ingest worker does.
  { id: 'reindex', job: 'reindex', everyMinutes: 1, sendsTo: ['ingest'] },
  { id: 'lake-retention', job: 'lake-retention', everyMinutes: 60, uses: ['lakeRead', 'lakeDelete'] },
  // Pending traces quiet for an hour (their root lost) go to the ingest worker to be closed.
  { id: 'trace-closing', job: 'trace-closing', everyMinutes: 5, sendsTo: ['ingest'] },
] as const satisfies readonly ScheduleDef[];

export interface Catalog {
  readonly routes: readonly RouteDef[];
  readonly fallbackRoute: Pick<RouteDef, 'id' | 'auth' | 'tier'>;
  readonly queues: readonly QueueDef[];
  readonly schedules: readonly ScheduleDef[];
}

export const catalog: Catalog = { routes, fallbackRoute, queues, schedules };

/** A route's area, the first part of its id: `keys` of `keys/list`. */
export const areaOf = (routeId: string): string => routeId.split('/')[0]!;

export const httpHandlerModule = (id: string): string => `functions/http/${id}.ts`;
export const workerModule = (consumer: string): string => `functions/workers/${consumer}.ts`;
export const jobModule = (job: string): string => `functions/jobs/${job}.ts`;

/** Environment variable that carries a queue's URL to the functions that send to it. */
export const queueUrlEnv = (id: string): string => `QUEUE_URL_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

export const needsSigningKey = (route: RouteDef): boolean => route.auth !== 'public' || route.usesSigningKey === true;
