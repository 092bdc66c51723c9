import { isDeepStrictEqual } from 'node:util';
import { tableItems } from '../../support/dynamo.ts';
import { BenchFailure } from '../scenario.ts';
import { type BenchAccount, type BenchService, serviceDb, signUp, startBenchService } from '../service.ts';
import { collectGarbage, type Elapsed, stopwatch } from '../stats.ts';
import { postBatches, type RequestOutcome } from './load.ts';
import { type SentTrace, type SpanBatch, spanCountOf } from './traces.ts';
import { type Verification, verifyStored } from './verify.ts';

/** High enough that neither sign-up nor the measured traffic is ever throttled. */
export const INGEST_BENCH_RATE_LIMITS = { auth: 1000, ingestion: 100_000 };
/** The trial's span quota is smaller than a bench. */
export const BENCH_PLAN = 'pro';
const DRAIN_TIMEOUT_MS = 90_000;
const FAILURE_CHECK_MS = 100;

type Item = Record<string, unknown>;

export interface RoundMeasure {
  spans: number;
  outcomes: RequestOutcome[];
  /** From the first request to the last 202. */
  accepted: Elapsed;
  /** From the first request until every queue is empty again: every accepted span persisted. */
  persisted: Elapsed;
  /** The items of the tenant the round added or changed, as they are at its end. */
  written: Item[];
}

/** The local service in this process with one bench account, keeping track of what it accepted. */
export async function startIngestTarget(concurrency: number) {
  const service = await startBenchService(INGEST_BENCH_RATE_LIMITS);
  let account: BenchAccount;
  try {
    account = await signUp(service, BENCH_PLAN);
    // What sign-up queued (its e-mail) is stored before the first round, so that no round counts it.
    await persisted(service, 'sign-up');
  } catch (err) {
    await service.stop();
    throw err;
  }
  const accepted: SentTrace[] = [];
  const tenantItems = async () =>
    new Map((await tableItems(serviceDb())).filter((item) => ofTenant(item, account.tenantId)).map((item) => [keyOf(item), item]));

  return {
    tenantId: account.tenantId,

    /**
     * Sends the batches, then waits until the queues are empty: everything accepted is persisted.
     * Throws when a request is refused or a message fails: the figures would mean nothing.
     */
    async sendAndPersist(phase: string, batches: readonly SpanBatch[]): Promise<RoundMeasure> {
      const before = await tenantItems();
      collectGarbage();
      const elapsed = stopwatch();
      const outcomes = await postBatches(service, account.apiKey, batches, concurrency);
      const acceptedBy = elapsed();
      accepted.push(...batches.flatMap((batch, i) => (outcomes[i]!.problem === undefined ? batch.traces : [])));
      const refused = outcomes.filter((o) => o.problem !== undefined);
      if (refused.length > 0) throw new BenchFailure(`${phase}: ${refused.length} request(s) not fully accepted, e.g. ${refused[0]!.problem}`);
      await persisted(service, phase);
      const persistedBy = elapsed();
      const written = [...(await tenantItems()).values()].filter((item) => !isDeepStrictEqual(item, before.get(keyOf(item))));
      return { spans: spanCountOf(batches), outcomes, accepted: acceptedBy, persisted: persistedBy, written };
    },

    verify: (sampleSize: number): Promise<Verification> => verifyStored(service, account, accepted, sampleSize),
    stop: () => service.stop(),
  };
}

const keyOf = (item: Item) => `${String(item['PK'])}\u0000${String(item['SK'])}`;
/** Whether the item is the tenant's: its key names it (rate-limit windows and deliveries name none). */
const ofTenant = (item: Item, tenantId: string) => String(item['PK']).includes(tenantId) || String(item['SK']).includes(tenantId);

/** Resolves once every queue is empty; rejects as soon as a consumer fails a message, or after the timeout. */
async function persisted(service: BenchService, phase: string): Promise<void> {
  let watch: NodeJS.Timeout | undefined;
  const consumerFailed = new Promise<never>((_, reject) => {
    watch = setInterval(() => {
      if (service.consumerFailures.length === 0) return;
      const failures = service.consumerFailures.length;
      reject(new Error(`${phase}: ${failures} queue message(s) failed, e.g. ${service.consumerFailures[0]} (LOG_LEVEL=ERROR shows the worker's error)`));
    }, FAILURE_CHECK_MS);
  });
  try {
    await Promise.race([service.drainQueues(DRAIN_TIMEOUT_MS), consumerFailed]);
  } catch (err) {
    throw new BenchFailure(`accepted telemetry was not persisted: ${(err as Error).message}`);
  } finally {
    clearInterval(watch);
  }
}
