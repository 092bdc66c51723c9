import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLocalLake } from '#shared/adapters/lake-duckdb.ts';
import { issueAccessToken } from '#shared/domain/accounts/jwt.ts';
import { signingMaterialFromSeed } from '#shared/domain/accounts/signing-keys.ts';
import { newTrialSubscription } from '#shared/domain/plans/subscription.ts';
import { tenantsRepository } from '#shared/store/tenants.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { lakeBufferBytes } from '../lake-memory.ts';
import { sizeName } from '../reads/figures.ts';
import { BenchFailure, type ScenarioResult, UsageError } from '../scenario.ts';
import { serviceDb } from '../service.ts';
import { collectGarbage, percentile, round } from '../stats.ts';
import { type Kind, type SizeRun, searchFigures, searchTable, TARGET_EXPORT_RSS_MB, TARGET_P95_MS } from './figures.ts';
import { QUERY_KINDS, queriesOf } from './queries.ts';
import { BENCH_TENANT, type BenchLake, benchLake } from './seed.ts';

/** The peak resident set since the last reset (Linux); the sampled peak elsewhere. */
function peakRss(): { reset(): void; read(): number } {
  let sampledPeak = 0;
  const timer = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)), 50);
  timer.unref();
  const linux = process.platform === 'linux';
  return {
    reset() {
      sampledPeak = process.memoryUsage().rss;
      if (linux) writeFileSync('/proc/self/clear_refs', '5');
    },
    read() {
      const hwm = linux ? /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] : undefined;
      return Math.max(sampledPeak, hwm ? Number(hwm) * 1024 : 0);
    },
  };
}

/**
 * Both sizes in one process and one running service: the local runtime opens `<DATA_DIR>/lake/traces.duckdb`,
 * a link to the small seeded lake first; between the sizes the lake is closed, as the runtime closes it
 * when it stops, and the link turned to the large one, which the next request opens.
 */
export async function runSearchBench(flags: Record<string, number>, progress: (line: string) => void): Promise<ScenarioResult> {
  const sizes = [flags['small-traces']!, flags['traces']!];
  if (sizes[0]! >= sizes[1]!) throw new UsageError(`--small-traces (${sizes[0]}) must be fewer than --traces (${sizes[1]})`);
  const lakes: BenchLake[] = [];
  for (const traces of sizes) lakes.push(await benchLake(traces, progress));
  const dataDir = await mkdtemp(join(tmpdir(), 'aos-search-bench-'));
  await mkdir(join(dataDir, 'lake'), { recursive: true });
  const link = join(dataDir, 'lake', 'traces.duckdb');
  await symlink(lakes[0]!.path, link);
  const service = await startTestService({
    dataDir,
    env: { RATE_LIMITS: JSON.stringify({ standard: 1_000_000, ingestion: 1_000_000, strict: 1_000, auth: 1_000 }) },
    ttlSweepEveryMs: false,
  });
  try {
    const token = await benchAccount(service);
    const runs: SizeRun[] = [];
    for (const [i, lake] of lakes.entries()) {
      if (i > 0) {
        await closeLocalLake(link);
        await rm(`${link}.wal`, { force: true });
        await rm(link);
        await symlink(lake.path, link);
      }
      collectGarbage();
      runs.push(await measure(service, token, lake, link, flags['repetitions']!, progress));
    }
    return { parameters: flags, figures: searchFigures(runs), details: searchTable(runs, flags), failures: failuresOf(runs) };
  } finally {
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The bench's tenant (the seeded rows' owner) on the pro plan, and a user's token for it. */
async function benchAccount(service: TestService): Promise<string> {
  const now = new Date();
  await tenantsRepository(serviceDb()).create({
    id: BENCH_TENANT,
    ownerUserId: 'usr_searchbench',
    subscription: { ...newTrialSubscription(now), plan: 'pro', status: 'active', trialEndsAt: null },
    createdAt: now.toISOString(),
  });
  const env = service.environment;
  const { accessToken } = await issueAccessToken(
    { userId: 'usr_searchbench', tenantId: BENCH_TENANT, email: 'bench@example.com' },
    await signingMaterialFromSeed(env['SIGNING_SEED']!),
    { issuer: env['JWT_ISSUER']!, audience: 'aos-api', ttlSeconds: 24 * 3600 },
    now,
  );
  return accessToken;
}

/** What the process holds when an export starts: its resident set, Node.js's heap, and DuckDB's memory (the lake the runtime has open at `link`). */
async function memoryNow(link: string): Promise<SizeRun['export']['memoryBefore']> {
  const duckdbBytes = await lakeBufferBytes(link);
  const { rss, heapTotal } = process.memoryUsage();
  return { rssMb: Math.round(rss / 2 ** 20), heapMb: Math.round(heapTotal / 2 ** 20), duckdbMb: Math.round(duckdbBytes / 2 ** 20) };
}

async function measure(
  service: TestService,
  token: string,
  lake: BenchLake,
  link: string,
  repetitions: number,
  progress: (line: string) => void,
): Promise<SizeRun> {
  const size = sizeName(lake.traces);
  const queries = queriesOf(lake);
  const search = async (q: string, cursor?: string) => {
    const startedAt = performance.now();
    const res = await service.api('GET', `/search/traces?q=${encodeURIComponent(q)}&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      token,
    });
    const elapsed = performance.now() - startedAt;
    if (res.status !== 200) throw new BenchFailure(`search "${q}" at ${size} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    return { elapsed, hits: res.body.data.length as number, next: res.body.pagination.nextCursor as string | null };
  };
  progress(`${size}: warming up (one round of every query, not measured)`);
  for (const q of Object.values(queries).flat()) await search(q);

  const timings: Record<Kind, number[]> = { word: [], phrase: [], field: [], combined: [], 'next page': [] };
  const hits: SizeRun['hits'] = QUERY_KINDS.flatMap((kind) => queries[kind].map((q) => ({ kind, q, hits: 0, more: false, latenciesMs: [] as number[] })));
  for (let round = 0; round < repetitions; round++) {
    for (const query of hits) {
      const { elapsed, hits: count, next } = await search(query.q);
      timings[query.kind].push(elapsed);
      query.latenciesMs.push(elapsed);
      Object.assign(query, { hits: count, more: next !== null });
      if (next && query.kind === 'word') timings['next page'].push((await search(query.q, next)).elapsed);
    }
    progress(
      `${size}: search round ${round + 1} of ${repetitions} done (p95 so far: ${QUERY_KINDS.map((k) => `${k} ${Math.round(percentile(timings[k], 0.95))} ms`).join(', ')})`,
    );
  }

  progress(`${size}: exporting all ${lake.traces.toLocaleString('en-US')} traces as JSON lines`);
  const rss = peakRss();
  collectGarbage();
  const memoryBefore = await memoryNow(link);
  rss.reset();
  const now = Date.now();
  const exportStarted = performance.now();
  const created = await service.api('POST', '/exports', {
    token,
    body: { format: 'jsonl', startDate: new Date(now - 366 * 86_400_000).toISOString(), endDate: new Date(now).toISOString() },
  });
  if (created.status !== 202) throw new BenchFailure(`the export at ${size} answered ${created.status}: ${JSON.stringify(created.body)}`);
  let done: { status: string; rows: number | null; bytes: number | null; error?: string };
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    done = (await service.api('GET', `/exports/${created.body.data.id}`, { token })).body.data;
    if (done.status === 'succeeded' || done.status === 'failed') break;
  }
  const seconds = (performance.now() - exportStarted) / 1000;
  const peakMb = Math.round(rss.read() / 2 ** 20);
  if (done.status !== 'succeeded') throw new BenchFailure(`the export at ${size} failed: ${done.error}`);
  progress(`${size}: exported ${done.rows} rows in ${round(seconds, 1)} s, peak RSS ${peakMb} MB`);
  return {
    lake,
    timings,
    hits,
    export: { rows: done.rows ?? 0, bytes: done.bytes ?? 0, seconds, peakMb, memoryBefore },
  };
}

function failuresOf(runs: readonly SizeRun[]): string[] {
  return runs.flatMap((run) => {
    const size = sizeName(run.lake.traces);
    const slow = (Object.entries(run.timings) as Array<[Kind, number[]]>)
      .map(([kind, samples]) => [kind, percentile(samples, 0.95)] as const)
      .filter(([, p95]) => p95 > TARGET_P95_MS)
      .map(([kind, p95]) => `${kind} search p95 at ${size} is ${Math.round(p95)} ms, over the ${TARGET_P95_MS} ms target`);
    return [
      ...slow,
      ...(run.export.rows !== run.lake.traces ? [`the export at ${size} wrote ${run.export.rows} rows of ${run.lake.traces} traces`] : []),
      ...(run.export.peakMb > TARGET_EXPORT_RSS_MB
        ? [`the export's peak RSS at ${size} is ${run.export.peakMb} MB, over the ${TARGET_EXPORT_RSS_MB} MB target`]
        : []),
    ];
  });
}
