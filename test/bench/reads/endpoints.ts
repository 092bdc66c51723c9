import { performance } from 'node:perf_hooks';
import type { TestService } from '../../support/service.ts';
import { BenchFailure } from '../scenario.ts';
import { collectGarbage } from '../stats.ts';
import type { Reads } from './meter.ts';
import type { TenantFacts } from './tenant.ts';

export const PAGE_LIMIT = 50;
/** The deep page the bench asks for, by cursor and by skip. */
export const DEEP_PAGE = 10;

/**
 * One measured request, of a kind: `key`, a list read through key conditions only, held to the issue's
 * target of at most 3 × limit items read; `filter`, a filter DynamoDB reads past (within a budget);
 * `skip`, a page after `skip` items, which reads them; `floor`, no list: what any request costs here.
 */
export interface Endpoint {
  key: string;
  label: string;
  path: string;
  kind: 'key' | 'filter' | 'skip' | 'floor';
}

export interface EndpointTiming {
  endpoint: Endpoint;
  latenciesMs: number[];
  reads: Reads[];
  /** The last answer's pagination. */
  pagination: { total: number; totalExact: boolean; hasMore: boolean };
  /** Items in the last answer's page. */
  items: number;
}

const busiest = (counts: ReadonlyMap<string, number>) => [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];

/** The lists and filters the bench asks for, with parameter values picked from what was seeded. */
export function endpointsOf(facts: TenantFacts, agentTask: (agentId: string) => string, cursors: { deepTraces: string }, nowMs: number): Endpoint[] {
  const agentId = busiest(facts.tracesOfAgent);
  const userId = busiest(facts.tracesOfUser);
  const sessionId = facts.sampledSessions[0]!;
  const traces = (key: string, label: string, query: string, keyed: boolean | 'skip'): Endpoint => ({
    key: `traces${key}`,
    label: `traces ${label}`,
    path: `/spans/traces?limit=${PAGE_LIMIT}${query}`,
    kind: keyed === 'skip' ? 'skip' : keyed ? 'key' : 'filter',
  });
  const list = (key: string, label: string, path: string): Endpoint => ({ key, label, path, kind: 'key' });
  return [
    { key: 'floor', label: 'an alert by id (no list: the floor of any request)', path: `/spans/alerts/${facts.alertId}`, kind: 'floor' },
    traces('', '(first page)', '', true),
    traces('Error', 'status=error', '&status=error', true),
    traces('Agent', 'agentId', `&agentId=${agentId}`, true),
    traces('AgentError', 'agentId & status=error', `&agentId=${agentId}&status=error`, true),
    traces('User', 'userId', `&userId=${userId}`, true),
    traces('Session', 'sessionId', `&sessionId=${sessionId}`, true),
    traces('Day', 'last 24 h', `&startDate=${new Date(nowMs - 86_400_000).toISOString()}`, true),
    traces('Tool', 'toolName', '&toolName=refund.issue', false),
    traces('ErrorType', 'errorType', '&errorType=Timeout', false),
    traces('Name', 'name', `&name=${encodeURIComponent(agentTask(agentId))}`, false),
    traces('Model', 'model', '&model=gpt-4o-mini', false),
    traces('Tag', 'tag', '&tag=vip', false),
    traces('Metadata', 'metadata', `&metadata=${encodeURIComponent('plan=enterprise')}`, false),
    traces('MinDuration', 'minDurationMs=20000', '&minDurationMs=20000', false),
    traces('MaxDuration', 'maxDurationMs=100', '&maxDurationMs=100', false),
    traces('MinCost', 'minCost=0.05', '&minCost=0.05', false),
    traces('MinTokens', 'minTokens=9000', '&minTokens=9000', false),
    traces('HasAlert', 'hasAlert=true', '&hasAlert=true', false),
    traces('AgentTool', 'agentId & toolName', `&agentId=${agentId}&toolName=search`, false),
    traces('DeepCursor', `page ${DEEP_PAGE} by cursor`, `&cursor=${encodeURIComponent(cursors.deepTraces)}`, true),
    traces('DeepSkip', `page ${DEEP_PAGE} by skip`, `&skip=${(DEEP_PAGE - 1) * PAGE_LIMIT}`, 'skip'),
    list('sessions', 'sessions', `/sessions?limit=${PAGE_LIMIT}`),
    list('sessionsAgent', 'sessions agentId', `/sessions?limit=${PAGE_LIMIT}&agentId=${agentId}`),
    list('sessionsUser', 'sessions userId', `/sessions?limit=${PAGE_LIMIT}&userId=${userId}`),
    list('session', 'a session with its traces', `/sessions/${sessionId}?limit=${PAGE_LIMIT}`),
    list('logs', 'logs', `/logs?limit=${PAGE_LIMIT}`),
    list('logsError', 'logs level=error', `/logs?limit=${PAGE_LIMIT}&level=error`),
    list('signals', 'signals', `/signals?limit=${PAGE_LIMIT}`),
    list('signalsName', 'signals signalName', `/signals?limit=${PAGE_LIMIT}&signalName=thumbs`),
    list('alerts', 'alerts', `/spans/alerts?limit=${PAGE_LIMIT}`),
    list('alertsOpen', 'alerts status=open', `/spans/alerts?limit=${PAGE_LIMIT}&status=open`),
    list('agents', 'agents (with metrics)', `/agents?limit=${PAGE_LIMIT}`),
    list('agentsRange', 'agents, metrics over 7 days', `/agents?limit=${PAGE_LIMIT}&startDate=${new Date(nowMs - 7 * 86_400_000).toISOString()}`),
  ];
}

/** The cursor of the first page after `pages` pages of the list (walked, not timed). */
export async function cursorAfter(service: TestService, apiKey: string, path: string, pages: number): Promise<string> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const res = await service.api('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey });
    if (res.status !== 200 || !res.body.pagination.nextCursor) throw new BenchFailure(`GET ${path}: no page ${i + 2} (${res.status})`);
    cursor = res.body.pagination.nextCursor as string;
  }
  return cursor!;
}

/**
 * Asks every endpoint in turn, one request at a time, `warmup + repetitions` rounds (so that whatever
 * else the machine does falls on all alike), timing from sending to the parsed answer, and metering
 * what each measured request read.
 */
export async function timeEndpoints(
  service: TestService,
  apiKey: string,
  endpoints: readonly Endpoint[],
  warmup: number,
  repetitions: number,
  take: () => Reads,
): Promise<EndpointTiming[]> {
  const timings = endpoints.map(
    (endpoint): EndpointTiming => ({ endpoint, latenciesMs: [], reads: [], pagination: { total: 0, totalExact: false, hasMore: false }, items: 0 }),
  );
  collectGarbage();
  for (let round = -warmup; round < repetitions; round++) {
    for (const timing of timings) {
      take();
      const sentAt = performance.now();
      const res = await service.api('GET', timing.endpoint.path, { apiKey });
      const latency = performance.now() - sentAt;
      const reads = take();
      if (res.status !== 200) throw new BenchFailure(`GET ${timing.endpoint.path} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      if (round < 0) continue;
      timing.latenciesMs.push(latency);
      timing.reads.push(reads);
      timing.pagination = res.body.pagination ?? timing.pagination;
      timing.items = Array.isArray(res.body.data) ? res.body.data.length : (res.body.data.traces?.length ?? 1);
    }
  }
  return timings;
}
