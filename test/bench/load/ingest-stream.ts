import { type SentTrace, type SpanBatch, seededRandom, spanBatches } from '../ingest/traces.ts';
import { endpointOf, fire, type RequestContext, type StreamStats } from './cannon.ts';
import type { Ready } from './target-process.ts';

export interface IngestLoad {
  seconds: number;
  /** Requests per second, over all connections. */
  rate: number;
  connections: number;
  spansPerRequest: number;
  anomalyRate: number;
  seed: number;
}

export interface IngestOutcome {
  stats: StreamStats;
  /** Traces of the requests answered 202 with every span accepted. */
  accepted: SentTrace[];
  acceptedSpans: number;
  /** Requests answered with anything but a clean 202 (a 429 included: this stream has a high limit). */
  problems: string[];
  /** Requests sent but never answered (the run was cut short): their spans may or may not be stored. */
  unanswered: number;
}

/** Extra time, past the offered duration, before a stream that fell behind its rate is stopped. */
const DEADLINE_GRACE_SECONDS = 60;

/**
 * POST /api/spans at `rate` requests per second with the API key, `rate × seconds` requests in all,
 * each a fresh batch of whole agent traces (made just before it is sent). Ending by count rather than
 * by time means no request is cut off in flight, so every accepted span can be accounted for.
 */
export async function runIngest(target: Ready, load: IngestLoad): Promise<IngestOutcome> {
  const random = seededRandom(load.seed);
  const { origin, path } = endpointOf(target.baseUrl);
  const accepted: SentTrace[] = [];
  const problems: string[] = [];
  let acceptedSpans = 0;
  let sent = 0;
  let answered = 0;

  const { stats, stoppedAtDeadline } = await fire(
    {
      url: origin,
      connections: load.connections,
      overallRate: load.rate,
      amount: load.rate * load.seconds,
      requests: [
        {
          method: 'POST',
          path: path('/spans'),
          headers: { 'content-type': 'application/json', 'x-api-key': target.apiKey },
          setupRequest: (request, context) => {
            const batch = spanBatches(random, 1, load.spansPerRequest, Date.now(), load.anomalyRate)[0]!;
            (context as RequestContext)['batch'] = batch;
            sent++;
            return { ...request, body: batch.body };
          },
          onResponse: (status, body, context) => {
            answered++;
            const batch = (context as RequestContext)['batch'] as SpanBatch;
            const problem = ingestProblem(status, body, batch);
            if (problem) problems.push(problem);
            else {
              accepted.push(...batch.traces);
              acceptedSpans += batch.spanCount;
            }
          },
        },
      ],
    },
    (load.seconds + DEADLINE_GRACE_SECONDS) * 1000,
  );
  if (stoppedAtDeadline)
    problems.push(`the stream fell behind ${load.rate} requests/s and was stopped ${DEADLINE_GRACE_SECONDS} s after its ${load.seconds} s`);
  return { stats, accepted, acceptedSpans, problems, unanswered: sent - answered };
}

/** Why an answer to a batch is not a 202 accepting each of its spans, or undefined when it is. */
export function ingestProblem(status: number, body: string, batch: SpanBatch): string | undefined {
  if (status === 202) {
    const { accepted, rejected } = (JSON.parse(body) as { data: { accepted: number; rejected: number } }).data;
    if (accepted === batch.spanCount && rejected === 0) return undefined;
  }
  return `${status} ${body.slice(0, 300)}`;
}
