import { performance } from 'node:perf_hooks';
import { mapConcurrently } from '#shared/domain/concurrency.ts';
import type { TestService } from '../../support/service.ts';
import type { SpanBatch } from './traces.ts';

export interface RequestOutcome {
  latencyMs: number;
  status: number;
  /** The answer when it was not a 202 accepting every span, to say what went wrong. */
  problem?: string;
}

/** Posts every batch to `POST /spans`, `concurrency` requests in flight at a time, timing each answer. */
export async function postBatches(service: TestService, apiKey: string, batches: readonly SpanBatch[], concurrency: number): Promise<RequestOutcome[]> {
  return mapConcurrently(batches, concurrency, (batch) => postBatch(service, apiKey, batch));
}

async function postBatch(service: TestService, apiKey: string, batch: SpanBatch): Promise<RequestOutcome> {
  const sentAt = performance.now();
  const res = await service.api('POST', '/spans', { apiKey, rawBody: batch.body, headers: { 'content-type': 'application/json' } });
  const latencyMs = performance.now() - sentAt;
  const clean = res.status === 202 && res.body.data.accepted === batch.spanCount && res.body.data.rejected === 0;
  return { latencyMs, status: res.status, ...(clean ? {} : { problem: `${res.status} ${JSON.stringify(res.body).slice(0, 300)}` }) };
}
