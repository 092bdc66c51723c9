import { performance } from 'node:perf_hooks';
import { chooseGranularity } from '#shared/domain/analytics/buckets.ts';
import type { Db } from '#shared/store/client.ts';
import type { TestService } from '../../support/service.ts';
import { allSummaries } from '../../support/traces.ts';
import { BenchFailure } from '../scenario.ts';
import { collectGarbage, stopwatch } from '../stats.ts';
import { type ExactAnswer, exactAnswer } from './exact.ts';

export const ENDPOINTS = [
  { key: 'metrics', name: 'metrics', path: '/analytics/metrics' },
  { key: 'successFailure', name: 'success-failure', path: '/analytics/traces/success-failure' },
  { key: 'requestsOverTime', name: 'requests-over-time', path: '/analytics/traces/requests-over-time' },
  { key: 'latencyPercentiles', name: 'latency-percentiles', path: '/analytics/traces/latency-percentiles' },
  { key: 'tokenUsage', name: 'token-usage', path: '/analytics/traces/token-usage' },
  { key: 'costs', name: 'costs', path: '/analytics/costs' },
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** A query range: [startMs, endMs), whole minutes. */
export interface QueryRange {
  key: string;
  label: string;
  startMs: number;
  endMs: number;
}

export interface EndpointTiming {
  range: QueryRange;
  endpoint: Endpoint;
  latenciesMs: number[];
  /** The `data` of the last answer. */
  answer: Record<string, any>;
}

const queryOf = ({ startMs, endMs }: QueryRange) => `startDate=${new Date(startMs).toISOString()}&endDate=${new Date(endMs).toISOString()}`;

/**
 * Asks every endpoint for every range, one request at a time, `warmup + repetitions` rounds of all of
 * them in turn (so that whatever else the machine does falls on all alike), timing the rounds after
 * the warm-up from sending the request to the parsed answer.
 */
export async function timeEndpoints(
  service: TestService,
  apiKey: string,
  ranges: readonly QueryRange[],
  warmup: number,
  repetitions: number,
): Promise<EndpointTiming[]> {
  const timings = ranges.flatMap((range) => ENDPOINTS.map((endpoint): EndpointTiming => ({ range, endpoint, latenciesMs: [], answer: {} })));
  collectGarbage();
  for (let round = -warmup; round < repetitions; round++) {
    for (const timing of timings) {
      const sentAt = performance.now();
      timing.answer = await ask(service, apiKey, `${timing.endpoint.path}?${queryOf(timing.range)}`);
      if (round >= 0) timing.latenciesMs.push(performance.now() - sentAt);
    }
  }
  return timings;
}

async function ask(service: TestService, apiKey: string, path: string): Promise<Record<string, any>> {
  const res = await service.api('GET', path, { apiKey });
  if (res.status !== 200) throw new BenchFailure(`GET ${path} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.data;
}

export interface ScanTiming {
  range: QueryRange;
  traces: number;
  /** Per repetition: reading the range's summaries, and that plus the exact aggregation. */
  listSeconds: number[];
  totalSeconds: number[];
  answer: ExactAnswer;
}

/**
 * The baseline: the six answers for the range computed without rollups, by reading every trace
 * summary of the range (`allSummaries`) and aggregating them exactly, `repetitions` times.
 */
export async function timeScan(db: Db, tenantId: string, range: QueryRange, repetitions: number): Promise<ScanTiming> {
  const listSeconds: number[] = [];
  const totalSeconds: number[] = [];
  let answer: ExactAnswer | undefined;
  for (let i = 0; i < repetitions; i++) {
    answer = undefined;
    collectGarbage();
    const elapsed = stopwatch();
    const summaries = await allSummaries(db, tenantId, { startMs: range.startMs, endMs: range.endMs });
    listSeconds.push(elapsed().seconds);
    answer = exactAnswer(summaries, range.startMs, range.endMs, chooseGranularity(range.startMs, range.endMs));
    totalSeconds.push(elapsed().seconds);
  }
  return { range, traces: answer!.overall.requestCount, listSeconds, totalSeconds, answer: answer! };
}
