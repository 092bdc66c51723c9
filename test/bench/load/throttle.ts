import { WINDOW_SECONDS } from '#shared/domain/rate-limit.ts';
import { type SentTrace, type SpanBatch, seededRandom, spanBatches } from '../ingest/traces.ts';
import { endpointOf, fire, headerOf, type RequestContext, type StreamStats } from './cannon.ts';
import { ingestProblem } from './ingest-stream.ts';
import type { Ready } from './target-process.ts';

export interface ThrottleLoad {
  /** The ingestion tier's limit per minute the target was started with. */
  limit: number;
  requests: number;
  connections: number;
  spansPerRequest: number;
  seed: number;
}

export interface ThrottleOutcome {
  stats: StreamStats;
  accepted: SentTrace[];
  acceptedRequests: number;
  refusedRequests: number;
  /** Rate-limit windows the answers named (X-RateLimit-Reset): the requests may straddle a minute. */
  windows: number;
  /** Anything but a clean 202 or a well-formed 429. */
  problems: string[];
}

/** Why a 429 is not what docs/limits-and-plans.md promises: Retry-After within the window, nothing remaining. */
function refusalProblem(headers: Record<string, unknown> | undefined): string | undefined {
  const retryAfter = Number(headerOf(headers, 'retry-after'));
  if (!Number.isInteger(retryAfter) || retryAfter < 1 || retryAfter > WINDOW_SECONDS) return `429 with Retry-After ${headerOf(headers, 'retry-after')}`;
  if (headerOf(headers, 'x-ratelimit-remaining') !== '0') return `429 with X-RateLimit-Remaining ${headerOf(headers, 'x-ratelimit-remaining')}`;
  return undefined;
}

/**
 * Sends `requests` span batches as fast as `connections` allow against a service whose ingestion limit
 * is low, so that most are refused: the answers must be 202 (every span accepted) or 429 with
 * Retry-After, nothing else, and at most `limit` per window accepted.
 */
export async function runThrottled(target: Ready, load: ThrottleLoad): Promise<ThrottleOutcome> {
  const batches = spanBatches(seededRandom(load.seed), load.requests, load.spansPerRequest, Date.now(), 0);
  const { origin, path } = endpointOf(target.baseUrl);
  const outcome = { accepted: [] as SentTrace[], acceptedRequests: 0, refusedRequests: 0, problems: [] as string[] };
  const windows = new Set<string>();
  let next = 0;

  const { stats } = await fire({
    url: origin,
    connections: load.connections,
    amount: load.requests,
    requests: [
      {
        method: 'POST',
        path: path('/spans'),
        headers: { 'content-type': 'application/json', 'x-api-key': target.apiKey },
        setupRequest: (request, context) => {
          const batch = batches[next++]!;
          (context as RequestContext)['batch'] = batch;
          return { ...request, body: batch.body };
        },
        onResponse: (status, body, context, headers) => {
          const batch = (context as RequestContext)['batch'] as SpanBatch;
          windows.add(headerOf(headers, 'x-ratelimit-reset') ?? 'none');
          const problem = status === 429 ? refusalProblem(headers) : ingestProblem(status, body, batch);
          if (problem) outcome.problems.push(problem);
          else if (status === 429) outcome.refusedRequests++;
          else {
            outcome.acceptedRequests++;
            outcome.accepted.push(...batch.traces);
          }
        },
      },
    ],
  });
  if (outcome.acceptedRequests > load.limit * windows.size) {
    outcome.problems.push(`${outcome.acceptedRequests} requests accepted in ${windows.size} window(s) of ${load.limit}`);
  }
  return { stats, ...outcome, windows: windows.size };
}
