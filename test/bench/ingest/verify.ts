import type { TestService } from '../../support/service.ts';
import { allSummaries } from '../../support/traces.ts';
import { type BenchAccount, expectStatus, serviceDb } from '../service.ts';
import type { SentTrace } from './traces.ts';

export interface Verification {
  expectedTraces: number;
  /** What `GET /spans/traces` counts. */
  listedTraces: number;
  expectedSpans: number;
  /** Sum of spanCount over the stored trace summaries (each recomputed by the worker from the stored spans). */
  storedSpans: number;
  sampledTraces: number;
  /** One line per trace or count that is not as sent; empty when everything accepted was stored. */
  mismatches: string[];
}

/**
 * Reads back what was accepted: the API's trace count, every trace summary (from the store: paging
 * through the API re-reads the whole list per page) with the span count it was sent with, and a
 * sample of traces in full through the API.
 */
export async function verifyStored(
  service: TestService,
  auth: Pick<BenchAccount, 'apiKey' | 'tenantId'>,
  sent: readonly SentTrace[],
  sampleSize: number,
): Promise<Verification> {
  const mismatches: string[] = [];
  const listedTraces = Number(
    expectStatus(await service.api('GET', '/spans/traces?limit=1', { apiKey: auth.apiKey }), 200, 'list traces').body.pagination.total,
  );
  if (listedTraces !== sent.length) mismatches.push(`${sent.length} traces accepted, GET /spans/traces counts ${listedTraces}`);

  const summaries = await allSummaries(serviceDb(), auth.tenantId);
  const spanCounts = new Map(summaries.map((s) => [s.traceId, s.spanCount]));
  for (const trace of sent) {
    const stored = spanCounts.get(trace.traceId);
    if (stored !== trace.spanCount) mismatches.push(`trace ${trace.traceId}: sent ${trace.spanCount} spans, stored ${stored ?? 'none'}`);
  }

  const sample = evenlySpaced(sent, sampleSize);
  for (const trace of sample) {
    const res = await service.api('GET', `/spans/traces/${trace.traceId}`, { apiKey: auth.apiKey });
    const readBack = res.status === 200 ? `${res.body.data.spans.length} spans` : `answer ${res.status}`;
    if (readBack !== `${trace.spanCount} spans`) mismatches.push(`trace ${trace.traceId}: sent ${trace.spanCount} spans, read back ${readBack}`);
  }
  return {
    expectedTraces: sent.length,
    listedTraces,
    expectedSpans: sent.reduce((sum, t) => sum + t.spanCount, 0),
    storedSpans: summaries.reduce((sum, s) => sum + s.spanCount, 0),
    sampledTraces: sample.length,
    mismatches,
  };
}

function evenlySpaced<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!);
}
