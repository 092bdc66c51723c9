// The service under load, in a process of its own: handlers read their configuration (RATE_LIMITS
// among it) once per process, and the load generator should not share the service's event loop.
// Started by target-process.ts; answers over the IPC channel (protocol.ts).
import '../../support/env.ts';
import { exitWithParent } from '../child.ts';
import { postBatches } from '../ingest/load.ts';
import { type SentTrace, seededRandom, spanBatches } from '../ingest/traces.ts';
import { verifyStored } from '../ingest/verify.ts';
import { BenchFailure } from '../scenario.ts';
import { type BenchAccount, type BenchService, expectStatus, signUp, startBenchService } from '../service.ts';
import { drainOrFail } from './drain.ts';
import type { ControlMessage, ReadTargets, SeedSpec, TargetMessage, TargetOptions } from './protocol.ts';

const SEED_CONCURRENCY = 4;
const SEED_DRAIN_TIMEOUT_MS = 120_000;
/** Enough distinct trace ids that the trace reads are not all served from one partition. */
const READ_TRACE_IDS = 200;

exitWithParent();

const send = (message: TargetMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));

async function seed(service: BenchService, account: BenchAccount, spec: SeedSpec): Promise<SentTrace[]> {
  if (spec.requests === 0) return [];
  const batches = spanBatches(seededRandom(spec.seed), spec.requests, spec.spansPerRequest, Date.now(), spec.anomalyRate);
  const outcomes = await postBatches(service, account.apiKey, batches, SEED_CONCURRENCY);
  const refused = outcomes.find((o) => o.problem !== undefined);
  if (refused) throw new BenchFailure(`seeding: a request was not fully accepted: ${refused.problem}`);
  await drainOrFail(service, () => service.consumerFailures, SEED_DRAIN_TIMEOUT_MS);
  return batches.flatMap((b) => b.traces);
}

/** A key of the generator's own, so that the verification's requests never count against what the load used up. */
async function loadKey(service: BenchService, account: BenchAccount): Promise<string> {
  const res = await service.api('POST', '/keys', { token: account.token, body: { name: 'load generator' } });
  return expectStatus(res, 201, "create the load generator's API key").body.data.key as string;
}

/** Read as the dashboard does, with the user's token: the key that verifies later keeps its whole allowance. */
async function readTargets(service: BenchService, token: string, seeded: readonly SentTrace[]): Promise<ReadTargets> {
  const idsOf = async (path: string) =>
    (expectStatus(await service.api('GET', path, { token }), 200, `GET ${path}`).body.data as Array<{ id: string }>).map((item) => item.id);
  return {
    traceIds: seeded.slice(0, READ_TRACE_IDS).map((t) => t.traceId),
    agentIds: await idsOf('/agents?limit=100'),
    alertIds: await idsOf('/spans/alerts?limit=100'),
  };
}

function nextControl(): Promise<ControlMessage> {
  return new Promise((resolve) => process.once('message', (message) => resolve(message as ControlMessage)));
}

async function main(options: TargetOptions): Promise<void> {
  const service = await startBenchService(options.rateLimits);
  try {
    const account = await signUp(service, options.plan);
    const seeded = await seed(service, account, options.seed);
    const targets = await readTargets(service, account.token, seeded);
    await send({
      type: 'ready',
      baseUrl: service.baseUrl,
      apiKey: await loadKey(service, account),
      token: account.token,
      seededTraces: seeded.length,
      readTargets: targets,
    });
    for (let control = await nextControl(); control.type === 'verify'; control = await nextControl()) {
      const drainSeconds = await drainOrFail(service, () => service.consumerFailures, control.drainTimeoutMs);
      const verification = await verifyStored(service, account, [...seeded, ...control.accepted], control.sampleSize);
      await send({ type: 'verified', drainSeconds, verification });
    }
  } finally {
    await service.stop();
  }
}

// The generator's process is gone: nobody will stop this one.
process.once('disconnect', () => process.exit(1));

main(JSON.parse(process.argv[2]!) as TargetOptions).then(
  () => process.exit(0),
  async (err: unknown) => {
    await send({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  },
);
