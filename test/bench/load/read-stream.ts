import { performance } from 'node:perf_hooks';
import type autocannon from 'autocannon';
import { endpointOf, fire, type RequestContext, type StreamStats } from './cannon.ts';
import type { ReadTargets } from './protocol.ts';
import type { Ready } from './target-process.ts';

export interface ReadLoad {
  seconds: number;
  /** Requests per second, over all connections. */
  rate: number;
  connections: number;
}

/** One kind of dashboard read: the route as the catalog names it, and the API path of its next request. */
interface ReadEndpoint {
  route: string;
  next: () => string;
}

export interface EndpointTally {
  latenciesMs: number[];
  statuses: Record<string, number>;
}

export interface ReadOutcome {
  stats: StreamStats;
  byRoute: Map<string, EndpointTally>;
}

/** Each of `ids` in turn. */
function cycle(ids: readonly string[]): () => string {
  let next = 0;
  return () => ids[next++ % ids.length]!;
}

const fixed = (route: string, path: string): ReadEndpoint => ({ route, next: () => path });

/** What a dashboard reads: the lists, a trace, an agent and an alert, the analytics (ids it has none of are left out). */
function dashboardReads({ traceIds, agentIds, alertIds }: ReadTargets): ReadEndpoint[] {
  const byId = (route: string, prefix: string, ids: string[]): ReadEndpoint[] => {
    if (ids.length === 0) return [];
    const id = cycle(ids);
    return [{ route, next: () => `${prefix}/${id()}` }];
  };
  return [
    fixed('GET /spans/traces', '/spans/traces?limit=50'),
    ...byId('GET /spans/traces/{traceId}', '/spans/traces', traceIds),
    fixed('GET /analytics/metrics', '/analytics/metrics'),
    fixed('GET /analytics/traces/latency-percentiles', '/analytics/traces/latency-percentiles'),
    fixed('GET /agents', '/agents'),
    ...byId('GET /agents/{agentId}', '/agents', agentIds),
    fixed('GET /spans/alerts', '/spans/alerts?limit=20'),
    fixed('GET /spans/alerts/summary', '/spans/alerts/summary'),
    ...byId('GET /spans/alerts/{alertId}', '/spans/alerts', alertIds),
    fixed('GET /spans/filters', '/spans/filters'),
  ];
}

/**
 * The dashboard's reads, in turn on every connection, with the user's access token, for `seconds`.
 * Besides autocannon's figures for the whole stream, each route's answers are timed and counted here.
 */
export async function runReads(target: Ready, load: ReadLoad): Promise<ReadOutcome> {
  const { origin, path } = endpointOf(target.baseUrl);
  const byRoute = new Map<string, EndpointTally>();
  const tally = (route: string) => byRoute.get(route) ?? byRoute.set(route, { latenciesMs: [], statuses: {} }).get(route)!;

  const requests: autocannon.Request[] = dashboardReads(target.readTargets).map((endpoint) => ({
    method: 'GET',
    headers: { authorization: `Bearer ${target.token}` },
    setupRequest: (request, context) => {
      (context as RequestContext)['sentAt'] = performance.now();
      return { ...request, path: path(endpoint.next()) };
    },
    onResponse: (status, _body, context) => {
      const t = tally(endpoint.route);
      t.latenciesMs.push(performance.now() - ((context as RequestContext)['sentAt'] as number));
      t.statuses[status] = (t.statuses[status] ?? 0) + 1;
    },
  }));
  const { stats } = await fire({ url: origin, connections: load.connections, overallRate: load.rate, duration: load.seconds, requests });
  return { stats, byRoute };
}
